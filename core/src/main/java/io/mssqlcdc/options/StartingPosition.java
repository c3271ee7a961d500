package io.mssqlcdc.options;

import io.mssqlcdc.lsn.Lsn;
import java.io.Serializable;

/**
 * Where a new checkpoint starts ({@code startingLsn}): the oldest change CDC holds, the newest
 * commit, or after an explicit LSN (exclusive: that LSN counts as processed).
 *
 * @param kind which of the three
 * @param lsn the explicit LSN when {@code kind} is {@link Kind#LSN}, else {@code null}
 */
public record StartingPosition(Kind kind, Lsn lsn) implements Serializable {
  public enum Kind { EARLIEST, LATEST, LSN }

  public static final StartingPosition EARLIEST = new StartingPosition(Kind.EARLIEST, null);
  public static final StartingPosition LATEST = new StartingPosition(Kind.LATEST, null);

  public static StartingPosition after(Lsn lsn) {
    return new StartingPosition(Kind.LSN, lsn);
  }

  @Override
  public String toString() {
    return kind == Kind.LSN ? lsn.toString() : kind.name().toLowerCase(java.util.Locale.ROOT);
  }
}
