package io.mssqlcdc.sink.facts;

import static io.mssqlcdc.sink.facts.FactsColumn.*;

import io.mssqlcdc.sink.tables.Migration;
import io.mssqlcdc.sink.tables.TableKind;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * The facts table kind: one row per micro-batch (also with 0 rows) and per event. Its twelve
 * migrations are the reference's (reference-behaviour §14.2): 1-6 add columns, 7-12 set comments.
 * Comments are set to this release's texts.
 */
public final class FactsTable implements TableKind {
  /** The one instance. */
  public static final FactsTable KIND = new FactsTable();

  static final String COMMENT = "mssql-cdc-spark facts: one row per micro-batch written to the target (rows, LSN"
      + " range, commit times, lags, retention headroom) and one per event (schema changes, capture-instance"
      + " switches, skipped changes, snapshots). Filter event IS NULL for batch statistics.";

  private static final StructType SCHEMA = new StructType(
      Arrays.stream(FactsColumn.values()).map(FactsColumn::field).toArray(StructField[]::new));

  private final List<Migration> migrations = List.of(
      Migration.adding("network and read metrics", fields(SOURCE_RTT_MS, READ_SECONDS, READ_MB, NETWORK_WAIT_MS)),
      Migration.adding("retention headroom", fields(RETENTION_WATERMARK_TS, RETENTION_HEADROOM_HOURS)),
      Migration.adding("snapshot events", fields(EVENT, LOST_FROM_TS, LOST_TO_TS)),
      Migration.adding("lag metrics", fields(SOURCE_MAX_COMMIT_TS, CAPTURE_LAG_SECONDS, INGESTION_LAG_SECONDS)),
      Migration.adding("end offset", fields(END_LSN, END_COMMIT_TS))
          .withComments(comments(ROWS, RETENTION_HEADROOM_HOURS, INGESTION_LAG_SECONDS), COMMENT),
      Migration.adding("source change events", fields(DETAIL))
          .withComments(comments(BATCH_ID, ROWS, EVENT, END_LSN, END_COMMIT_TS), COMMENT),
      Migration.commenting("chunked snapshot events", comments(ROWS, EVENT, DETAIL), COMMENT),
      Migration.commenting("snapshot plans and modes", comments(EVENT, DETAIL), COMMENT),
      Migration.commenting("full snapshot opens per run", comments(EVENT), null),
      Migration.commenting("skipped changes", comments(BATCH_ID, EVENT, LOST_FROM_TS, LOST_TO_TS, DETAIL), COMMENT),
      Migration.commenting("skips a task records", comments(EVENT, DETAIL), null),
      Migration.commenting("batch warnings", comments(DETAIL), null));

  private FactsTable() {}

  /** The columns of a new facts table, in order, with comments. */
  public static StructType schema() {
    return SCHEMA;
  }

  @Override
  public String name() {
    return "facts";
  }

  @Override
  public List<Migration> migrations() {
    return migrations;
  }

  @Override
  public String tableComment() {
    return COMMENT;
  }

  private static List<StructField> fields(FactsColumn... cs) {
    return Arrays.stream(cs).map(FactsColumn::field).toList();
  }

  private static Map<String, String> comments(FactsColumn... cs) {
    Map<String, String> m = new LinkedHashMap<>();
    for (FactsColumn c : cs) {
      m.put(c.column(), c.comment());
    }
    return m;
  }
}
