package io.mssqlcdc.reconcile;

import io.mssqlcdc.sink.tables.Migration;
import io.mssqlcdc.sink.tables.TableKind;
import java.util.List;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * The reconcile report table kind ({@code reconcile}, no migrations: schema version 0, as the
 * reference's): one row per bucket, per differing key and per chunk problem of each run
 * (reference-behaviour §14.6), appended, never updated. Names, order and types are the
 * reference's, so either library's runs can share one report table.
 */
public final class ReportTable implements TableKind {
  /** The one instance. */
  public static final ReportTable KIND = new ReportTable();

  static final String COMMENT = "mssql-cdc-spark reconcile report: each run of Reconcile appends one row per bucket"
      + " (counts and key sums of silver and SQL Server, status MATCH, IN_FLIGHT or MISMATCH), one per differing"
      + " key (failure_type MISSING_TARGET, MISSING_SOURCE, RECORD_DIFF, IN_FLIGHT) and one per chunk problem"
      + " (CHUNK_TILING, CHUNK_ROWS, CHUNK_STAMP). See docs/RECONCILE.md.";

  /** A column of the report: name, type, meaning. */
  public record Column(String name, DataType type, String comment) {}

  /** The columns in creation order. */
  public static final List<Column> COLUMNS = List.of(
      new Column("run_id", DataTypes.StringType, "UUID of the run; every row of a run carries it."),
      new Column("run_at", DataTypes.TimestampNTZType, "When the run started, UTC."),
      new Column("silver", DataTypes.StringType, "The silver table compared (name or path, as given)."),
      new Column("silver_version", DataTypes.LongType, "The Delta version of silver compared."),
      new Column("silver_lsn", DataTypes.StringType, "Silver's applied_lsn in the control table, read before that"
          + " version was pinned; NULL when silver has none yet."),
      new Column("source_lsn", DataTypes.StringType, "SQL Server's max_lsn read just before the source was read"
          + " (bucket rows: before the counts; key rows: before the rows); NULL on chunk rows."),
      new Column("bucket_lo", DataTypes.StringType, "The bucket's first key (JSON; NULL: open; both bounds NULL: the"
          + " whole table); on chunk rows the chunk's lo."),
      new Column("bucket_hi", DataTypes.StringType, "The bucket's exclusive end (JSON; NULL: open); on chunk rows the"
          + " chunk's hi."),
      new Column("source_rows", DataTypes.LongType, "Rows of the bucket in SQL Server."),
      new Column("source_key_sum", DataTypes.createDecimalType(38, 0), "Sum of the bucket's keys in SQL Server"
          + " (dates as days since 1970-01-01); NULL for a whole-table count."),
      new Column("silver_rows", DataTypes.LongType, "Rows of the bucket in silver."),
      new Column("silver_key_sum", DataTypes.createDecimalType(38, 0), "Sum of the bucket's keys in silver."),
      new Column("status", DataTypes.StringType, "Bucket rows: MATCH (rows and key sums equal), IN_FLIGHT (they"
          + " differ but keys of the bucket changed after silver's position) or MISMATCH; NULL on other rows."),
      new Column("hashed", DataTypes.BooleanType, "Bucket rows: whether the bucket was compared row by row (tier 2)."),
      new Column("key", DataTypes.StringType, "Key rows: the differing key as a JSON object (a NULL key column as"
          + " null)."),
      new Column("failure_type", DataTypes.StringType, "Key rows: MISSING_TARGET, MISSING_SOURCE, RECORD_DIFF or"
          + " IN_FLIGHT; chunk rows: CHUNK_TILING, CHUNK_ROWS or CHUNK_STAMP; NULL on bucket rows."),
      new Column("detail", DataTypes.StringType, "Key rows: {silver_start_lsn, columns} (the differing columns,"
          + " comma separated); chunk rows: {snapshot, chunk, ...} with problem, facts_rows/bronze_rows or lsn."));

  private ReportTable() {}

  @Override
  public String name() {
    return "reconcile";
  }

  @Override
  public List<Migration> migrations() {
    return List.of();
  }

  @Override
  public String tableComment() {
    return COMMENT;
  }

  /** The schema of a new report table, with the column comments. */
  public static StructType schema() {
    StructType s = new StructType();
    for (Column c : COLUMNS) {
      s = s.add(new StructField(c.name(), c.type(), true, Metadata.empty()).withComment(c.comment()));
    }
    return s;
  }

  /** The generated part of docs/TABLES.md. */
  public static String doc() {
    StringBuilder sb = new StringBuilder("| # | Column | Type | Meaning |\n|---|---|---|---|\n");
    for (int i = 0; i < COLUMNS.size(); i++) {
      Column c = COLUMNS.get(i);
      sb.append("| ").append(i + 1).append(" | `").append(c.name()).append("` | ").append(c.type().sql())
          .append(" | ").append(c.comment().replace("|", "\\|")).append(" |\n");
    }
    return sb.toString();
  }
}
