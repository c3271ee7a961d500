package io.mssqlcdc.sink.tables;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.spark.sql.SparkSession;

/**
 * Reads the rows of a small Delta table (the library's control table) on the driver through Delta
 * Kernel, with no Spark job: Delta's Spark reader computes the table's state and filters its files
 * in Spark jobs even for a table of a few rows, which a call that reads one row of it pays every
 * time. The answer is the table's newest version, as a Spark read would see it. Columns of types
 * string, int, bigint and timestamp_ntz; anything else, a feature Kernel cannot read, or no Kernel on
 * the class path (a runtime with its own Delta): empty, and the caller reads with Spark.
 */
public final class DriverRead {
  private DriverRead() {}

  /**
   * The rows of {@code ref} whose {@code keyColumn} is one of {@code keys}, each as column name to
   * value ({@code String}, {@code Integer}, {@code Long}, {@code LocalDateTime}; absent columns and
   * NULLs as null) over {@code columns}; empty when the table cannot be read this way.
   */
  public static Optional<List<Map<String, Object>>> rowsWhere(SparkSession spark, TableRef ref, String keyColumn,
      Set<String> keys, List<String> columns) {
    try {
      // Kernel's classes are touched only in KernelRows, loaded here: a runtime without them ends up below.
      return KernelRows.rowsWhere(spark, ref, keyColumn, keys, columns);
    } catch (Exception | LinkageError e) {
      LogVersion.unavailable(ref, e);
      return Optional.empty();
    }
  }

  /**
   * Whether {@code ref} at {@code version} has any data file, read from its log on the driver (no Spark job); empty
   * when the table cannot be read this way. A table with no file holds no row; one with files may still hold none
   * (files whose rows were all deleted), which only a read can tell.
   */
  public static Optional<Boolean> hasFiles(SparkSession spark, TableRef ref, long version) {
    try {
      return KernelRows.hasFiles(spark, ref, version);
    } catch (Exception | LinkageError e) {
      LogVersion.unavailable(ref, e);
      return Optional.empty();
    }
  }
}
