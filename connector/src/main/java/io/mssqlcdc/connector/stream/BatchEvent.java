package io.mssqlcdc.connector.stream;

import io.mssqlcdc.lsn.Lsn;
import java.io.Serializable;
import java.time.Instant;

/**
 * Something the stream noticed while planning or reading a micro-batch that the sink may want to
 * record (reference-behaviour §8.3): a schema change, a capture-instance switch, or changes
 * skipped with {@code failOnDataLoss=false}.
 *
 * @param kind what happened
 * @param captureInstance the instance concerned
 * @param lsn where: the DDL LSN, the newer instance's start, or where a skip resumed
 * @param commitTs UTC commit time of {@code lsn} (or of the last commit at or before a DDL LSN);
 *     {@code null} when unknown
 * @param detail human-readable detail (the DDL command, {@code "v1 -> v2"}, the lost range as JSON
 *     {@code {"from": "0x…", "to": "0x…", "certain": true|false[, "reason": "…"]}})
 * @param lostFromTs {@code data_skipped} only (facts {@code lost_from_ts}): UTC commit time of the
 *     batch's start offset, the last change read before the gap; {@code null} when unknown (an
 *     explicit {@code startingLsn} that is no commit's) and on other kinds
 * @param lostToTs {@code data_skipped} only (facts {@code lost_to_ts}): UTC commit time of the
 *     {@code min_lsn} the stream resumed at (the last mapping entry at or before it); {@code null}
 *     when unknown and on other kinds
 */
public record BatchEvent(
    Kind kind, String captureInstance, Lsn lsn, Instant commitTs, String detail, Instant lostFromTs, Instant lostToTs)
    implements Serializable {

  /** An event without a lost interval (schema changes, switches). */
  public BatchEvent(Kind kind, String captureInstance, Lsn lsn, Instant commitTs, String detail) {
    this(kind, captureInstance, lsn, commitTs, detail, null, null);
  }

  /** This event with {@code lostFromTs} set when it is a {@code data_skipped} one that lacks it. */
  BatchEvent withLostFrom(Instant from) {
    if (kind != Kind.DATA_SKIPPED || lostFromTs != null || from == null) {
      return this;
    }
    return new BatchEvent(kind, captureInstance, lsn, commitTs, detail, from, lostToTs);
  }

  /** The kind whose label is {@code label}. */
  static Kind ofLabel(String label) {
    for (Kind k : Kind.values()) {
      if (k.label().equals(label)) {
        return k;
      }
    }
    throw new IllegalArgumentException("no event kind labelled " + label);
  }

  /** The event kinds; {@link #label()} is the name the reference writes into the facts table. */
  public enum Kind {
    SCHEMA_CHANGE("schema_change"),
    CAPTURE_INSTANCE_SWITCHED("capture_instance_switched"),
    DATA_SKIPPED("data_skipped"),
    /** Issue 30: the driver's capture-health probe found the capture job stopped (detail: evidence and fix). */
    CAPTURE_STOPPED("capture_stopped"),
    /** Issue 30: capture's last log scan was behind the log by more than the threshold. */
    CAPTURE_LAGGING("capture_lagging"),
    /** Issue 30: cleanup's retention would remove the stream's position within the threshold. */
    RETENTION_AT_RISK("retention_at_risk");

    private final String label;

    Kind(String label) {
      this.label = label;
    }

    public String label() {
      return label;
    }
  }

  @Override
  public String toString() {
    return kind.label() + " " + captureInstance + " at " + lsn + (commitTs == null ? "" : " (" + commitTs + ")")
        + ": " + detail;
  }
}
