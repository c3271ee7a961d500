package io.mssqlcdc.it;

import org.apache.spark.sql.SparkSession;

/** One local Spark session with Delta per test JVM (BUILD.md §2 settings for speed). */
final class ItSpark {
  private ItSpark() {}

  private static final class Holder {
    static final SparkSession SESSION = create();

    private static SparkSession create() {
      SparkSession s = SparkSession.builder().master("local[2]").appName("mssql-cdc-it")
          .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
          .config("spark.sql.shuffle.partitions", "1").config("spark.default.parallelism", "2")
          .config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1")
          .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
          .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
          .config("spark.databricks.delta.snapshotPartitions", "1")
          .config("spark.sql.redaction.options.regex", "(?i)url|connectionstring|password")
          .getOrCreate();
      Runtime.getRuntime().addShutdownHook(new Thread(s::stop));
      return s;
    }
  }

  static SparkSession session() {
    return Holder.SESSION;
  }
}
