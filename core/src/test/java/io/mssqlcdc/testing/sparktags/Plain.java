package io.mssqlcdc.testing.sparktags;

import org.junit.jupiter.api.Test;

/** Touches nothing of the stand-in Spark class: needs no tag. */
class Plain {
  @Test
  void plain() {
    Math.abs(-1);
  }
}
