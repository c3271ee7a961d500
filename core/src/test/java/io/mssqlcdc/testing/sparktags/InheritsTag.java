package io.mssqlcdc.testing.sparktags;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Tagged through its base class, and slow as well. */
@Tag("slow")
class InheritsTag extends TaggedBase {
  @Test
  void usesIt() {
    Helper.touch();
  }
}
