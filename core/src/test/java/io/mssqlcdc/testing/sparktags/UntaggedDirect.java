package io.mssqlcdc.testing.sparktags;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Names the stand-in Spark class itself, without the tag (a parameterized test is a test too). */
class UntaggedDirect {
  @ParameterizedTest
  @ValueSource(ints = {1})
  void usesIt(int n) {
    FakeSparkApi.touch();
  }
}
