package io.mssqlcdc.sink;

import io.mssqlcdc.connector.CdcColumns;
import io.mssqlcdc.sink.tables.Migration;
import io.mssqlcdc.sink.tables.TableKind;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * The bronze table kind: the change log, append-only (reference-behaviour §14.1). Columns: the
 * source's metadata columns, the captured columns, then {@code _batch_id INT},
 * {@code _snapshot STRING} and {@code _chunk INT}. Columns a newer capture instance captures join
 * through {@code mergeSchema} (older rows NULL); dropped ones stay. Physical column order is not
 * stable across migrations and merges: read and write by name.
 */
public final class BronzeTable implements TableKind {
  /** The one instance. */
  public static final BronzeTable KIND = new BronzeTable();

  static final String COMMENT = "mssql-cdc-spark bronze: the SQL Server CDC change log of one table, append-only,"
      + " exactly once per (app_id, batch). Change rows have _operation 1 (delete), 2 (insert), 3/4 (update"
      + " before/after); snapshot rows have _operation 0 and _snapshot set. The latest image of a key is the row with"
      + " the greatest (_start_lsn, _command_id, _seqval, _operation).";

  static final String CAPTURE_INSTANCE_COMMENT = "Capture instance the row was read from; after a capture-instance"
      + " switch, rows of the table's older and newer instances both appear.";
  static final String COMMAND_ID_COMMENT = "__$command_id: order of the statements inside a transaction, numbered"
      + " per capture instance; NULL on snapshot rows.";
  static final String START_LSN_COMMENT = "Commit LSN of the change (__$start_lsn, 0x + 20 hex digits); on snapshot"
      + " rows the snapshot's stamp: max_lsn recorded before the table was read (a chunked snapshot's rows carry"
      + " their wave's stamp).";
  static final String BATCH_ID_COMMENT = "Micro-batch that wrote the row (its facts row has the same batch_id and"
      + " app_id); NULL on snapshot rows.";
  static final String SNAPSHOT_COMMENT = "On snapshot rows, the LSN S of the snapshot they belong to (recorded before"
      + " any of its rows was read); NULL on change rows. Rows written before the column existed: use"
      + " coalesce(_snapshot, _start_lsn).";
  static final String CHUNK_COMMENT = "Chunk of a chunked snapshot the row was read in; NULL otherwise.";

  private final List<Migration> migrations = List.of(
      Migration.commenting("capture instance comments",
          ordered(CdcColumns.CAPTURE_INSTANCE, CAPTURE_INSTANCE_COMMENT, CdcColumns.COMMAND_ID, COMMAND_ID_COMMENT),
          COMMENT),
      Migration.adding("snapshot and chunk columns", List.of(snapshotField(), chunkField()))
          .withComments(Map.of(CdcColumns.START_LSN, START_LSN_COMMENT), COMMENT));

  private BronzeTable() {}

  @Override
  public String name() {
    return "bronze";
  }

  @Override
  public List<Migration> migrations() {
    return migrations;
  }

  @Override
  public String tableComment() {
    return COMMENT;
  }

  /**
   * The rows of a micro-batch as bronze stores them: the batch's columns, then {@code _batch_id}
   * = {@code batchId}, {@code _snapshot} NULL and {@code _chunk} NULL.
   */
  public static Dataset<Row> changeRows(Dataset<Row> batch, long batchId) {
    return withBronzeColumns(batch, functions.lit((int) batchId), functions.lit(null).cast(DataTypes.StringType),
        functions.lit(null).cast(DataTypes.IntegerType));
  }

  /**
   * The rows of a snapshot as bronze stores them: {@code _batch_id} NULL, {@code _snapshot} =
   * {@code snapshotLsn}, {@code _chunk} as read (NULL for a whole snapshot).
   */
  public static Dataset<Row> snapshotRows(Dataset<Row> snapshot, String snapshotLsn) {
    boolean chunked = java.util.Arrays.asList(snapshot.columns()).contains(CdcColumns.CHUNK);
    Column chunk = chunked ? snapshot.col(CdcColumns.CHUNK) : functions.lit(null).cast(DataTypes.IntegerType);
    return withBronzeColumns(snapshot, functions.lit(null).cast(DataTypes.IntegerType), functions.lit(snapshotLsn),
        chunk);
  }

  private static Dataset<Row> withBronzeColumns(Dataset<Row> rows, Column batchId, Column snapshot, Column chunk) {
    java.util.List<Column> cols = new java.util.ArrayList<>();
    for (StructField f : rows.schema().fields()) {
      if (!f.name().equals(CdcColumns.CHUNK)) {
        cols.add(rows.col(quote(f.name())));
      }
    }
    cols.add(batchId.cast(DataTypes.IntegerType).as(CdcColumns.BATCH_ID, comment(BATCH_ID_COMMENT)));
    cols.add(snapshot.cast(DataTypes.StringType).as(CdcColumns.SNAPSHOT, comment(SNAPSHOT_COMMENT)));
    cols.add(chunk.cast(DataTypes.IntegerType).as(CdcColumns.CHUNK, comment(CHUNK_COMMENT)));
    return rows.select(cols.toArray(Column[]::new));
  }

  /**
   * The columns of a new bronze table for rows of {@code schema} (already with the bronze columns):
   * the library's columns carry their comments, captured columns none.
   */
  public static StructType creationSchema(StructType schema) {
    StructField[] out = new StructField[schema.size()];
    for (int i = 0; i < schema.size(); i++) {
      StructField f = schema.fields()[i];
      String c = libraryComment(f.name());
      out[i] = c == null ? new StructField(f.name(), f.dataType(), true, Metadata.empty())
          : new StructField(f.name(), f.dataType(), true, Metadata.empty()).withComment(c);
    }
    return new StructType(out);
  }

  private static String libraryComment(String name) {
    return switch (name) {
      case CdcColumns.CAPTURE_INSTANCE -> CAPTURE_INSTANCE_COMMENT;
      case CdcColumns.START_LSN -> START_LSN_COMMENT;
      case CdcColumns.SEQVAL -> "__$seqval: order of the change inside its transaction; NULL on snapshot rows.";
      case CdcColumns.OPERATION -> "0 snapshot row, 1 delete, 2 insert, 3 update before image, 4 update after image.";
      case CdcColumns.COMMAND_ID -> COMMAND_ID_COMMENT;
      case CdcColumns.COMMIT_TS -> "Commit time of _start_lsn, UTC (from cdc.lsn_time_mapping, converted from the"
          + " server clock).";
      case CdcColumns.BATCH_ID -> BATCH_ID_COMMENT;
      case CdcColumns.SNAPSHOT -> SNAPSHOT_COMMENT;
      case CdcColumns.CHUNK -> CHUNK_COMMENT;
      default -> null;
    };
  }

  static StructField snapshotField() {
    return new StructField(CdcColumns.SNAPSHOT, DataTypes.StringType, true, Metadata.empty()).withComment(SNAPSHOT_COMMENT);
  }

  static StructField chunkField() {
    return new StructField(CdcColumns.CHUNK, DataTypes.IntegerType, true, Metadata.empty()).withComment(CHUNK_COMMENT);
  }

  private static Metadata comment(String c) {
    return new org.apache.spark.sql.types.MetadataBuilder().putString("comment", c).build();
  }

  private static String quote(String name) {
    return "`" + name.replace("`", "``") + "`";
  }

  private static Map<String, String> ordered(String k1, String v1, String k2, String v2) {
    Map<String, String> m = new LinkedHashMap<>();
    m.put(k1, v1);
    m.put(k2, v2);
    return m;
  }
}
