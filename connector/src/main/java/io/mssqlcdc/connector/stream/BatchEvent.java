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
 * @param detail human-readable detail (the DDL command, {@code "v1 -> v2"}, the lost range)
 */
public record BatchEvent(Kind kind, String captureInstance, Lsn lsn, Instant commitTs, String detail)
    implements Serializable {

  /** The event kinds; {@link #label()} is the name the reference writes into the facts table. */
  public enum Kind {
    SCHEMA_CHANGE("schema_change"),
    CAPTURE_INSTANCE_SWITCHED("capture_instance_switched"),
    DATA_SKIPPED("data_skipped");

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
