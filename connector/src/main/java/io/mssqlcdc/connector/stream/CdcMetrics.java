package io.mssqlcdc.connector.stream;

import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.metric.CustomSumMetric;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;

/**
 * The task metrics the source reports to Spark (shown on the scan node of the SQL UI and in
 * {@code StreamingQueryProgress}'s plan metrics): rows, bytes and read time, summed over tasks.
 */
final class CdcMetrics {
  static final String ROWS = "mssqlCdcRows";
  static final String BYTES = "mssqlCdcBytes";
  static final String READ_MS = "mssqlCdcReadMs";

  private CdcMetrics() {}

  static CustomMetric[] supported() {
    return new CustomMetric[] {new Rows(), new Bytes(), new ReadMs()};
  }

  static CustomTaskMetric[] values(long rows, long bytes, long readNanos) {
    return new CustomTaskMetric[] {task(ROWS, rows), task(BYTES, bytes), task(READ_MS, readNanos / 1_000_000)};
  }

  private static CustomTaskMetric task(String name, long value) {
    return new CustomTaskMetric() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public long value() {
        return value;
      }
    };
  }

  /** Change rows read. */
  public static final class Rows extends CustomSumMetric {
    @Override
    public String name() {
      return ROWS;
    }

    @Override
    public String description() {
      return "mssql_cdc change rows read";
    }
  }

  /** Estimated in-memory bytes of the values read. */
  public static final class Bytes extends CustomSumMetric {
    @Override
    public String name() {
      return BYTES;
    }

    @Override
    public String description() {
      return "mssql_cdc bytes read (estimated)";
    }
  }

  /** Time spent reading from SQL Server, ms. */
  public static final class ReadMs extends CustomSumMetric {
    @Override
    public String name() {
      return READ_MS;
    }

    @Override
    public String description() {
      return "mssql_cdc read time (ms)";
    }
  }
}
