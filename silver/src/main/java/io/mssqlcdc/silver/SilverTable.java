package io.mssqlcdc.silver;

import io.mssqlcdc.connector.CdcColumns;
import io.mssqlcdc.sink.tables.Migration;
import io.mssqlcdc.sink.tables.TableKind;
import java.util.List;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * The silver table kind ({@code silver}, no migrations: schema version 0, as the reference's): the
 * current state of one source table, one row per key (reference-behaviour §14.5). Columns: the
 * captured columns as bronze holds them (without bronze's metadata), then {@code _start_lsn STRING}
 * and {@code _commit_ts TIMESTAMP_NTZ}. It gains the columns bronze gains (a newer capture
 * instance's), and never changes a column's type.
 */
public final class SilverTable implements TableKind {
  /** The one instance. */
  public static final SilverTable KIND = new SilverTable();

  static final String COMMENT = "mssql-cdc-spark silver: the current state of a SQL Server table, one row per key,"
      + " built from the bronze change log by ApplyChanges. Deleted rows are removed. How far it is applied is"
      + " applied_lsn in the control table; finalized_until there says which periods are complete.";
  static final String START_LSN_COMMENT = "Commit LSN (0x + 20 hex digits) of the source transaction that wrote this"
      + " row's current image; on a row unchanged since a snapshot, the snapshot's LSN (a chunked snapshot's: its"
      + " wave's stamp).";
  static final String COMMIT_TS_COMMENT = "Commit time of _start_lsn, UTC.";

  /** Bronze's columns that are not the source's: never copied to silver. */
  static final List<String> BRONZE_METADATA = List.of(CdcColumns.CAPTURE_INSTANCE, CdcColumns.START_LSN,
      CdcColumns.SEQVAL, CdcColumns.OPERATION, CdcColumns.COMMAND_ID, CdcColumns.COMMIT_TS, CdcColumns.BATCH_ID,
      CdcColumns.SNAPSHOT, CdcColumns.CHUNK);

  private SilverTable() {}

  @Override
  public String name() {
    return "silver";
  }

  @Override
  public List<Migration> migrations() {
    return List.of();
  }

  @Override
  public String tableComment() {
    return COMMENT;
  }

  /** The two columns silver adds after the captured ones, with their comments. */
  public static List<StructField> libraryColumns() {
    return List.of(
        new StructField(CdcColumns.START_LSN, DataTypes.StringType, true, Metadata.empty())
            .withComment(START_LSN_COMMENT),
        new StructField(CdcColumns.COMMIT_TS, DataTypes.TimestampNTZType, true, Metadata.empty())
            .withComment(COMMIT_TS_COMMENT));
  }

  /** The columns of a new silver table for {@code captured} (bronze's captured columns, no comments). */
  public static StructType creationSchema(List<StructField> captured) {
    StructType s = new StructType();
    for (StructField f : captured) {
      s = s.add(new StructField(f.name(), f.dataType(), true, Metadata.empty()));
    }
    for (StructField f : libraryColumns()) {
      s = s.add(f);
    }
    return s;
  }

  /** Whether {@code column} is one of bronze's metadata columns (matched ignoring case). */
  static boolean isBronzeMetadata(String column) {
    return BRONZE_METADATA.stream().anyMatch(m -> m.equalsIgnoreCase(column));
  }
}
