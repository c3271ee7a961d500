package io.mssqlcdc.testing.sparktags;

/** SparkTagsTest's stand-in for a Spark class (the root the fixtures reach or not). */
public final class FakeSparkApi {
  private FakeSparkApi() {}

  static int touch() {
    return 1;
  }
}
