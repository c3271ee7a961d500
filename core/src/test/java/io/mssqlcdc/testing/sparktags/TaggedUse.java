package io.mssqlcdc.testing.sparktags;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Reaches it with the tag. */
@Tag("spark")
class TaggedUse {
  @Test
  void usesIt() {
    Helper.touch();
  }
}
