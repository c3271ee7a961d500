package io.mssqlcdc.connector;

import org.apache.spark.sql.SparkSession;

/**
 * One local SparkSession per test JVM (surefire reuses one fork per module), configured as
 * BUILD.md measured: small shuffles, no codegen for tiny data, loopback driver.
 */
public final class SharedSpark {
  private SharedSpark() {}

  private static final class Holder {
    static final SparkSession SPARK = create();

    private static SparkSession create() {
      SparkSession s = SparkSession.builder()
          .master("local[2]")
          .appName("mssql-cdc-tests")
          .config("spark.ui.enabled", "false")
          .config("spark.ui.showConsoleProgress", "false")
          .config("spark.sql.shuffle.partitions", "1")
          .config("spark.default.parallelism", "2")
          .config("spark.driver.host", "127.0.0.1")
          .config("spark.driver.bindAddress", "127.0.0.1")
          .config("spark.sql.session.timeZone", "UTC")
          .config("spark.sql.codegen.wholeStage", "false")
          .config("spark.sql.codegen.factoryMode", "NO_CODEGEN")
          .getOrCreate();
      Runtime.getRuntime().addShutdownHook(new Thread(s::stop));
      return s;
    }
  }

  public static SparkSession spark() {
    return Holder.SPARK;
  }
}
