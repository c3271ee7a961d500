package io.mssqlcdc.testing.sparktags;

/** A fixture that uses the stand-in Spark class, as SharedDeltaSpark uses Spark. */
final class Helper {
  private Helper() {}

  static int touch() {
    return FakeSparkApi.touch();
  }
}
