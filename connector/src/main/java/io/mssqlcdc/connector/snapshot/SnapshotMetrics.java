package io.mssqlcdc.connector.snapshot;

import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.metric.CustomSumMetric;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;

/**
 * Task metrics of snapshot partitions, summed over the read in the SQL UI: rows read, bytes of
 * the captured values (approximate: UTF-8 bytes of strings, lengths of binaries, fixed widths),
 * and read time in milliseconds (from opening the cursor, Spark's consumption included).
 */
public final class SnapshotMetrics {
  static final String ROWS = "snapshotRowsRead";
  static final String BYTES = "snapshotBytesRead";
  static final String READ_MS = "snapshotReadTimeMs";

  private SnapshotMetrics() {}

  static CustomMetric[] supported() {
    return new CustomMetric[] {
      new Sum(ROWS, "rows read from the source table"),
      new Sum(BYTES, "bytes of captured values read (approximate)"),
      new Sum(READ_MS, "time reading the source table (ms)")
    };
  }

  static CustomTaskMetric[] values(long rows, long bytes, long readMs) {
    return new CustomTaskMetric[] {new Value(ROWS, rows), new Value(BYTES, bytes), new Value(READ_MS, readMs)};
  }

  /** A summed metric; public with a no-arg constructor because Spark instantiates it by name. */
  public static class Sum extends CustomSumMetric {
    private final String name;
    private final String description;

    public Sum() {
      this("", "");
    }

    Sum(String name, String description) {
      this.name = name;
      this.description = description;
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public String description() {
      return description;
    }
  }

  private record Value(String name, long value) implements CustomTaskMetric {}
}
