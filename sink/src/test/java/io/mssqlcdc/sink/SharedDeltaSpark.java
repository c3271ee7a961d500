package io.mssqlcdc.sink;

import org.apache.spark.sql.SparkSession;

/**
 * One local SparkSession with Delta per test JVM (surefire reuses one fork per module), configured
 * as BUILD.md measured: one snapshot partition (Delta's default 50 is the biggest cost), small
 * shuffles, no codegen for tiny data, loopback driver, UTC session zone.
 */
public final class SharedDeltaSpark {
  private SharedDeltaSpark() {}

  private static final class Holder {
    static final SparkSession SPARK = create();

    private static SparkSession create() {
      SparkSession s = SparkSession.builder()
          .master("local[2]")
          .appName("mssql-cdc-sink-tests")
          .config("spark.ui.enabled", "false")
          .config("spark.ui.showConsoleProgress", "false")
          .config("spark.sql.shuffle.partitions", "1")
          .config("spark.default.parallelism", "2")
          .config("spark.driver.host", "127.0.0.1")
          .config("spark.driver.bindAddress", "127.0.0.1")
          .config("spark.sql.session.timeZone", "UTC")
          .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
          .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
          .config("spark.databricks.delta.snapshotPartitions", "1")
          .config("spark.sql.codegen.wholeStage", "false")
          .config("spark.sql.codegen.factoryMode", "NO_CODEGEN")
          .config("spark.sql.warehouse.dir", System.getProperty("java.io.tmpdir") + "/mssql-cdc-sink-warehouse-"
              + ProcessHandle.current().pid())
          .getOrCreate();
      Runtime.getRuntime().addShutdownHook(new Thread(s::stop));
      return s;
    }
  }

  public static SparkSession spark() {
    return Holder.SPARK;
  }
}
