package io.mssqlcdc.sink.pipeline;

import static io.mssqlcdc.sink.facts.FactsColumn.*;

import io.mssqlcdc.sink.AppIds;
import io.mssqlcdc.sink.facts.FactsReader;
import io.mssqlcdc.sink.facts.FactsRow;
import io.mssqlcdc.sink.facts.FactsWriter;
import io.mssqlcdc.sink.tables.TableRef;
import java.time.Instant;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;

/**
 * The facts rows of snapshot events (reference-behaviour §13 {@code write_event}, §14.3):
 * {@code snapshot_open}, {@code bootstrap} and {@code resnapshot}. LSNs in min/max/end,
 * the snapshot's commit time in min/max/end commit ts, counts 0,
 * {@code retention_watermark_ts} = {@code lost_to_ts} and the headroom from it.
 */
final class SnapshotEvents {
  static final String OPEN = "snapshot_open";
  static final String BOOTSTRAP = "bootstrap";
  static final String RESNAPSHOT = "resnapshot";

  private SnapshotEvents() {}

  /** A snapshot event row. */
  static FactsRow event(String appId, String event, TakenSnapshot s, Instant lostFrom, Instant lostTo, String detail,
      String target) {
    String lsn = s.lsn().hex();
    FactsRow r = new FactsRow()
        .set(APP_ID, appId).set(ROWS, s.rows())
        .set(MIN_LSN, lsn).set(MAX_LSN, lsn).set(END_LSN, lsn)
        .set(MIN_COMMIT_TS, s.commitTs()).set(MAX_COMMIT_TS, s.commitTs()).set(END_COMMIT_TS, s.commitTs())
        .set(DELETES, 0L).set(INSERTS, 0L).set(UPDATES, 0L)
        .set(STARTED_AT, s.startedAt()).set(DURATION_MS, s.durationMs())
        .set(RETENTION_WATERMARK_TS, lostTo)
        .set(EVENT, event).set(LOST_FROM_TS, lostFrom).set(LOST_TO_TS, lostTo)
        .set(DETAIL, detail).set(TARGET, target);
    r.set(RETENTION_HEADROOM_HOURS, io.mssqlcdc.sink.chunked.ChunkedSnapshots.headroomHours(lostTo, s.commitTs()));
    return r;
  }

  /**
   * Writes generation 0's {@code bootstrap} row once (decision 0015). The first is keyed ({@code <app_id>#events},
   * version 0) as the reference writes it, so Delta skips a rerun's. A bootstrap taken again later (the snapshot's
   * capture instance was dropped, so bronze's snapshot no longer counts) cannot use that key: Delta has recorded
   * version 0 and would skip the new row without a word. Its row is appended without a key, once: a row of this
   * app id, target and stamp already there (a rerun after a crash past the append) writes nothing.
   */
  static void writeBootstrap(SparkSession spark, TableRef facts, AppIds ids, FactsRow row) {
    FactsWriter.ensure(spark, facts);
    String stamp = (String) row.get(MAX_LSN);
    List<String> earlier = FactsReader.events(spark, facts, (String) row.get(TARGET), BOOTSTRAP)
        .where(functions.col(APP_ID.column()).equalTo(row.get(APP_ID)))
        .select(MAX_LSN.column()).as(org.apache.spark.sql.Encoders.STRING()).collectAsList();
    if (earlier.isEmpty()) {
      FactsWriter.write(spark, facts, List.of(row), ids.eventsKey(), 0);
    } else if (!earlier.contains(stamp)) {
      FactsWriter.write(spark, facts, List.of(row), null, 0);
    }
  }

  /**
   * The detail of a {@code snapshot_open} row, as the reference writes it (default separators,
   * this key order): {@code {"mode": "full", "kind": "bootstrap", "generation": 0,
   * "lost_from_ts": null, "lost_to_ts": null}}.
   */
  static String openDetail(String mode, String kind, int generation, Instant lostFrom, Instant lostTo) {
    return "{\"mode\": \"" + mode + "\", \"kind\": \"" + kind + "\", \"generation\": " + generation
        + ", \"lost_from_ts\": " + time(lostFrom) + ", \"lost_to_ts\": " + time(lostTo) + "}";
  }

  private static String time(Instant t) {
    return t == null ? "null" : "\"" + Times.millis(t) + "\"";
  }
}
