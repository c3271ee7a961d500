package io.mssqlcdc.finalization;

import io.mssqlcdc.sink.tables.Migration;
import io.mssqlcdc.sink.tables.TableKind;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.MetadataBuilder;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * The control table kind ({@code control}): one row per CDC-fed table, holding its completeness
 * verdict {@code finalized_until} and, for silver tables, the position silver has applied
 * (reference-behaviour §14.4). Columns, order, types and the four migrations are the Python
 * reference's, so a control table it wrote is adopted and migrated:
 * <ol>
 *   <li>add {@code applied_lsn}, {@code snapshot_lsn};
 *   <li>add {@code open_snapshot_lsn}, {@code snapshot_wave};
 *   <li>comment of {@code open_snapshot_lsn} (re-snapshots too);
 *   <li>comment of {@code finalized_until} (loss gaps).
 * </ol>
 * The verdict columns are written by {@link Finalization#advance}; the silver columns by the
 * silver module, which never touches the verdict columns (a row it inserts has a NULL
 * {@code finalized_until}).
 */
public final class ControlTable implements TableKind {
  public static final String TABLE_NAME = "table_name";
  public static final String FINALIZED_UNTIL = "finalized_until";
  public static final String END_LSN = "end_lsn";
  public static final String END_COMMIT_TS = "end_commit_ts";
  public static final String UPDATED_AT = "updated_at";
  public static final String APPLIED_LSN = "applied_lsn";
  public static final String SNAPSHOT_LSN = "snapshot_lsn";
  public static final String OPEN_SNAPSHOT_LSN = "open_snapshot_lsn";
  public static final String SNAPSHOT_WAVE = "snapshot_wave";

  static final String COMMENT = "mssql-cdc-spark control table: one row per CDC-fed table. finalized_until is the"
      + " table's completeness verdict (UTC): gate downstream work on it, e.g. with Finalization.isFinal. Silver"
      + " tables also keep here the position applied (applied_lsn, snapshot_lsn, open_snapshot_lsn, snapshot_wave).";

  static final String TABLE_NAME_COMMENT = "The table this verdict is about, as passed to Finalization.advance or"
      + " track (for a stream, its target, name or path as given). One row per table.";
  static final String FINALIZED_UNTIL_COMMENT = "Completeness verdict, UTC: every period ending at or before it is"
      + " complete in the table, no source commit at or before it can still arrive. Only moves forward. Over a loss"
      + " gap a re-snapshot recorded (facts rows with event 'resnapshot', lost_from_ts to lost_to_ts), a change-log"
      + " table's verdict means only that nothing more will arrive, not that the gap's changes are in it.";
  static final String END_LSN_COMMENT = "Source commit LSN (0x + 20 hex digits) of the batch end that last moved the"
      + " verdict: how far the source had been read and committed to the table.";
  static final String END_COMMIT_TS_COMMENT = "Commit time of end_lsn, UTC. finalized_until is it truncated to the"
      + " period (minute, hour or day), because transactions sharing this exact commit time may still arrive.";
  static final String UPDATED_AT_COMMENT = "When the verdict last moved, UTC.";
  static final String APPLIED_LSN_COMMENT = "Silver tables: the highest bronze change LSN applied to the table.";
  static final String SNAPSHOT_LSN_COMMENT = "Silver tables: the LSN of the snapshot the table was last rebuilt from.";
  static final String OPEN_SNAPSHOT_LSN_COMMENT = "Silver tables: the LSN S of the open chunked snapshot (a bootstrap"
      + " or a re-snapshot read next to the stream) whose waves are being applied; NULL when none is open.";
  static final String SNAPSHOT_WAVE_COMMENT = "Silver tables: the highest wave of open_snapshot_lsn applied (waves"
      + " are applied in order); NULL when no chunked snapshot is open.";

  private static final StructType SCHEMA = new StructType(new StructField[] {
      field(TABLE_NAME, DataTypes.StringType, TABLE_NAME_COMMENT),
      field(FINALIZED_UNTIL, DataTypes.TimestampNTZType, FINALIZED_UNTIL_COMMENT),
      field(END_LSN, DataTypes.StringType, END_LSN_COMMENT),
      field(END_COMMIT_TS, DataTypes.TimestampNTZType, END_COMMIT_TS_COMMENT),
      field(UPDATED_AT, DataTypes.TimestampNTZType, UPDATED_AT_COMMENT),
      field(APPLIED_LSN, DataTypes.StringType, APPLIED_LSN_COMMENT),
      field(SNAPSHOT_LSN, DataTypes.StringType, SNAPSHOT_LSN_COMMENT),
      field(OPEN_SNAPSHOT_LSN, DataTypes.StringType, OPEN_SNAPSHOT_LSN_COMMENT),
      field(SNAPSHOT_WAVE, DataTypes.IntegerType, SNAPSHOT_WAVE_COMMENT)});

  /** The one instance (declared after the schema its migrations take their columns from). */
  public static final ControlTable KIND = new ControlTable();

  private final List<Migration> migrations = List.of(
      Migration.adding("silver position", List.of(SCHEMA.apply(APPLIED_LSN), SCHEMA.apply(SNAPSHOT_LSN))),
      Migration.adding("open chunked snapshot", List.of(SCHEMA.apply(OPEN_SNAPSHOT_LSN), SCHEMA.apply(SNAPSHOT_WAVE))),
      Migration.commenting("open snapshots include re-snapshots",
          Map.of(OPEN_SNAPSHOT_LSN, OPEN_SNAPSHOT_LSN_COMMENT), COMMENT),
      Migration.commenting("the verdict over a loss gap", Map.of(FINALIZED_UNTIL, FINALIZED_UNTIL_COMMENT), null));

  private ControlTable() {}

  /** The columns of a new control table, in order, with comments. */
  public static StructType schema() {
    return SCHEMA;
  }

  @Override
  public String name() {
    return "control";
  }

  @Override
  public List<Migration> migrations() {
    return migrations;
  }

  @Override
  public String tableComment() {
    return COMMENT;
  }

  private static StructField field(String name, DataType type, String comment) {
    Metadata m = new MetadataBuilder().putString("comment", comment).build();
    return new StructField(name, type, true, m);
  }
}
