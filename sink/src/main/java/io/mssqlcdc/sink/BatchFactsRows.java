package io.mssqlcdc.sink;

import static io.mssqlcdc.sink.facts.FactsColumn.*;

import io.mssqlcdc.connector.stream.BatchEvent;
import io.mssqlcdc.sink.facts.FactsRow;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * Builds the facts rows of one micro-batch (reference-behaviour §13 step 8, §14.2, §14.3): the
 * batch row (event NULL) first, then one row per event of the batch, all with the same
 * {@code app_id}, {@code batch_id} and {@code target}. Plain logic: no Spark.
 */
final class BatchFactsRows {
  private BatchFactsRows() {}

  static List<FactsRow> rows(String sinkId, long batchId, String target, BatchFacts f, LocalDateTime startedAt,
      long durationMs, BatchHealth h, List<String> warnings) {
    List<FactsRow> rows = new ArrayList<>();
    FactsRow b = new FactsRow()
        .set(APP_ID, sinkId).set(BATCH_ID, batchId).set(ROWS, f.rows())
        .set(MIN_LSN, f.minLsn()).set(MAX_LSN, f.maxLsn())
        .set(MIN_COMMIT_TS, f.minCommitTs()).set(MAX_COMMIT_TS, f.maxCommitTs())
        .set(DELETES, f.deletes()).set(INSERTS, f.inserts()).set(UPDATES, f.updates())
        .set(STARTED_AT, startedAt).set(DURATION_MS, durationMs)
        .set(SOURCE_RTT_MS, round(h.sourceRttMs(), 1))
        .set(READ_SECONDS, round(h.readSeconds(), 3))
        .set(READ_MB, round(h.readMb(), 6))
        .set(NETWORK_WAIT_MS, h.networkWaitMs())
        .set(RETENTION_WATERMARK_TS, h.retentionWatermark())
        .set(SOURCE_MAX_COMMIT_TS, h.sourceMaxCommitTs())
        .set(CAPTURE_LAG_SECONDS, round(h.captureLagSeconds(), 3))
        .set(END_LSN, h.endLsn() == null ? null : h.endLsn().hex())
        .set(END_COMMIT_TS, h.endCommitTs())
        .set(DETAIL, warningsJson(warnings))
        .set(TARGET, target);
    // The position for headroom and lag: the end offset's commit time, else the batch's newest commit.
    Instant position = h.endCommitTs() != null ? h.endCommitTs()
        : f.maxCommitTs() == null ? null : f.maxCommitTs().toInstant(ZoneOffset.UTC);
    if (position != null && h.retentionWatermark() != null) {
      b.set(RETENTION_HEADROOM_HOURS, round(hours(h.retentionWatermark(), position), 2));
    }
    if (h.sourceMaxCommitTs() != null && h.endCommitTs() != null) {
      b.set(INGESTION_LAG_SECONDS, round(seconds(h.endCommitTs(), h.sourceMaxCommitTs()), 3));
    }
    rows.add(b);
    for (BatchEvent e : h.events()) {
      rows.add(eventRow(sinkId, batchId, target, startedAt, e));
    }
    return rows;
  }

  static FactsRow eventRow(String sinkId, long batchId, String target, LocalDateTime startedAt, BatchEvent e) {
    String lsn = e.lsn() == null ? null : e.lsn().hex();
    return new FactsRow()
        .set(APP_ID, sinkId).set(BATCH_ID, batchId).set(ROWS, 0L)
        .set(MIN_LSN, lsn).set(MAX_LSN, lsn).set(END_LSN, lsn)
        .set(MIN_COMMIT_TS, e.commitTs()).set(MAX_COMMIT_TS, e.commitTs()).set(END_COMMIT_TS, e.commitTs())
        .set(DELETES, 0L).set(INSERTS, 0L).set(UPDATES, 0L)
        .set(STARTED_AT, startedAt)
        .set(EVENT, e.kind().label())
        .set(LOST_FROM_TS, e.lostFromTs()).set(LOST_TO_TS, e.lostToTs())
        .set(DETAIL, e.detail())
        .set(TARGET, target);
  }

  /** {@code {"warnings": [...]}} with the reference's separators, de-duplicated in first-seen order; null if none. */
  static String warningsJson(List<String> warnings) {
    if (warnings == null || warnings.isEmpty()) {
      return null;
    }
    StringBuilder sb = new StringBuilder("{\"warnings\": [");
    boolean first = true;
    for (String w : new LinkedHashSet<>(warnings)) {
      if (!first) {
        sb.append(", ");
      }
      first = false;
      sb.append(Json.quote(w));
    }
    return sb.append("]}").toString();
  }

  static Double round(Double v, int decimals) {
    if (v == null || v.isNaN() || v.isInfinite()) {
      return null;
    }
    return java.math.BigDecimal.valueOf(v).setScale(decimals, java.math.RoundingMode.HALF_EVEN).doubleValue();
  }

  private static double hours(Instant from, Instant to) {
    return Duration.between(from, to).toMillis() / 3_600_000.0;
  }

  private static double seconds(Instant from, Instant to) {
    return Duration.between(from, to).toMillis() / 1000.0;
  }
}
