package io.mssqlcdc.testing.sparktags;

import org.junit.jupiter.api.Test;

/** Reaches the stand-in Spark class through Helper, without the tag. */
class UntaggedUse {
  @Test
  void usesIt() {
    Helper.touch();
  }
}
