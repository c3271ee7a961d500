package io.mssqlcdc.connector.stream;

import io.mssqlcdc.lsn.Lsn;
import java.io.Serializable;

/**
 * A commit-aligned piece of a micro-batch: the change rows of one capture instance whose
 * {@code __$start_lsn} lies in {@code [from, to]} (both inclusive).
 *
 * @param captureInstance instance whose change table the range reads
 * @param from first LSN, inclusive
 * @param to last LSN, inclusive
 * @param rows change rows the planner expects (from split points; -1 when not counted)
 */
public record LsnRange(String captureInstance, Lsn from, Lsn to, long rows) implements Serializable {
  public LsnRange {
    if (to.isBefore(from)) {
      throw new IllegalArgumentException("empty range [" + from + ", " + to + "] of " + captureInstance);
    }
  }

  LsnRange withFrom(Lsn newFrom) {
    return new LsnRange(captureInstance, newFrom, to, rows);
  }

  @Override
  public String toString() {
    return captureInstance + "[" + from + ", " + to + "]";
  }
}
