package io.mssqlcdc.testing.sparktags;

/** Uses the stand-in Spark class but holds no test: not reported (Helper is not either). */
final class NotATest {
  private NotATest() {}

  static int touch() {
    return Helper.touch() + FakeSparkApi.touch();
  }
}
