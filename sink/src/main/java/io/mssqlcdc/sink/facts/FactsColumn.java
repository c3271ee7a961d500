package io.mssqlcdc.sink.facts;

import java.util.Locale;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructField;

/**
 * The columns of the facts table (reference-behaviour §14.2), in creation order, with their types
 * and comments. The names, order and types are the reference's (a table it wrote is continued);
 * tables created by older releases have later columns at the end, so rows are written by name.
 * Times are {@code TIMESTAMP_NTZ} in UTC.
 */
public enum FactsColumn {
  APP_ID(DataTypes.StringType,
      "Sink identity: the txnAppId of the bronze append; <app_id> in generation 0, <app_id>.g<n> after n re-snapshots."),
  BATCH_ID(DataTypes.LongType,
      "Micro-batch id; with app_id the idempotency key of a batch. Also on the schema_change,"
          + " capture_instance_switched and data_skipped rows of that batch; NULL on snapshot events."),
  ROWS(DataTypes.LongType,
      "Change rows written (all operations); 0 when none. On bootstrap/resnapshot rows the snapshot's rows (all"
          + " chunks), on snapshot_chunk rows the chunk's; 0 on other events; NULL on a snapshot event for a snapshot"
          + " this run did not read (reused)."),
  MIN_LSN(DataTypes.StringType,
      "Smallest __$start_lsn of the batch; events: the event LSN (snapshot_chunk: the wave's stamp)."),
  MAX_LSN(DataTypes.StringType,
      "Largest __$start_lsn of the batch; events: the event LSN (snapshot_chunk: max_lsn read after the chunk)."),
  MIN_COMMIT_TS(DataTypes.TimestampNTZType, "Earliest commit time of the batch, UTC."),
  MAX_COMMIT_TS(DataTypes.TimestampNTZType,
      "Latest commit time of the batch, UTC; written_at - max_commit_ts is the ingestion latency."),
  DELETES(DataTypes.LongType, "Delete rows (operation 1)."),
  INSERTS(DataTypes.LongType, "Insert rows (operation 2)."),
  UPDATES(DataTypes.LongType, "Update rows (operation 4, the after images; before images are not counted)."),
  STARTED_AT(DataTypes.TimestampNTZType, "When the sink started the batch, UTC."),
  DURATION_MS(DataTypes.LongType,
      "started_at to the end of the bronze write: reading the source, the write (not planning or Spark's checkpoint)."),
  SOURCE_RTT_MS(DataTypes.DoubleType, "Median over partitions of one SELECT 1 round trip just before reading, ms."),
  READ_SECONDS(DataTypes.DoubleType, "Partition read time summed over partitions (task-seconds)."),
  READ_MB(DataTypes.DoubleType, "Megabytes read after conversion to Spark values, summed over partitions."),
  NETWORK_WAIT_MS(DataTypes.LongType,
      "ASYNC_NETWORK_IO wait of the partitions' sessions, summed; NULL when the server does not expose it."),
  RETENTION_WATERMARK_TS(DataTypes.TimestampNTZType,
      "Commit time (UTC) of the capture instance's min_lsn after reading: CDC holds nothing older. On snapshot"
          + " events: lost_to_ts."),
  RETENTION_HEADROOM_HOURS(DataTypes.DoubleType,
      "end_commit_ts - retention_watermark_ts in hours: how far the stream is from losing changes to CDC cleanup"
          + " (close to the retention for a current stream; alert when it falls)."),
  EVENT(DataTypes.StringType,
      "NULL for a micro-batch; else schema_change, capture_instance_switched, data_skipped (changes skipped with"
          + " failOnDataLoss=false), snapshot_open, snapshot_plan, snapshot_chunk, bootstrap or resnapshot. Only"
          + " bootstrap and resnapshot rows are snapshots a current-state table rebuilds from."),
  LOST_FROM_TS(DataTypes.TimestampNTZType,
      "resnapshot: commit time of the last offset processed before the loss; data_skipped: the batch start offset's."),
  LOST_TO_TS(DataTypes.TimestampNTZType,
      "resnapshot and data_skipped: commit time of the retention watermark when the loss was found; changes"
          + " committed between lost_from_ts and it are missing from the change log."),
  SOURCE_MAX_COMMIT_TS(DataTypes.TimestampNTZType, "Commit time of sys.fn_cdc_get_max_lsn() after reading, UTC."),
  CAPTURE_LAG_SECONDS(DataTypes.DoubleType,
      "Partition clock (UTC) minus source_max_commit_ts when read, max over partitions: how far CDC capture trails"
          + " the server (may be negative with clock skew)."),
  INGESTION_LAG_SECONDS(DataTypes.DoubleType,
      "source_max_commit_ts - end_commit_ts: how far the batch end trails what capture has written."),
  END_LSN(DataTypes.StringType,
      "The batch's end offset (the last commit or idle entry it covers); events: the event or snapshot LSN."),
  END_COMMIT_TS(DataTypes.TimestampNTZType, "Commit time of end_lsn, UTC; finalized_until follows it."),
  DETAIL(DataTypes.StringType,
      "Events: JSON or text detail (the DDL command, '<old> -> <new>', the skipped range, a snapshot's plan or chunk);"
          + " micro-batches: {\"warnings\": [...]} when the batch logged warnings, else NULL."),
  TARGET(DataTypes.StringType, "The table (name or path) the batch or snapshot was written to."),
  WRITTEN_AT(DataTypes.TimestampNTZType, "When this row was written (after the bronze commit), UTC.");

  private final DataType type;
  private final String comment;

  FactsColumn(DataType type, String comment) {
    this.type = type;
    this.comment = comment;
  }

  /** The column name: the constant in lower case. */
  public String column() {
    return name().toLowerCase(Locale.ROOT);
  }

  public DataType type() {
    return type;
  }

  public String comment() {
    return comment;
  }

  /** The column as a Spark field with its comment. */
  public StructField field() {
    return new StructField(column(), type, true, Metadata.empty()).withComment(comment);
  }
}
