package io.mssqlcdc.sink.pipeline;

import io.mssqlcdc.lsn.Lsn;
import java.time.Instant;
import java.time.LocalDateTime;

/**
 * A snapshot in bronze: its stamp and, when this run read it, its rows and timing (null when it
 * was found rather than read: its facts event then has NULL rows, started_at and duration_ms).
 *
 * @param lsn the stamp S
 * @param commitTs S's commit time; null when S is no commit's
 * @param rows rows written; null when not read by this run
 * @param startedAt when the read started (UTC); null when not read by this run
 * @param durationMs stamp to the end of the append; null when not read by this run
 */
public record TakenSnapshot(Lsn lsn, Instant commitTs, Long rows, LocalDateTime startedAt, Long durationMs) {

  /** A snapshot found in bronze, not read now. */
  public static TakenSnapshot found(Lsn lsn, Instant commitTs) {
    return new TakenSnapshot(lsn, commitTs, null, null, null);
  }

  /** Whether this run read it. */
  public boolean readNow() {
    return rows != null;
  }

  /** The commit time as offsets and the state file hold it: ISO-8601 milliseconds, or "". */
  public String commitTsText() {
    return commitTs == null ? "" : Times.millis(commitTs);
  }
}
