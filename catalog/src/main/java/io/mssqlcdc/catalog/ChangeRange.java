package io.mssqlcdc.catalog;

import io.mssqlcdc.client.CdcClient;
import io.mssqlcdc.lsn.Lsn;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Optional;

/**
 * The LSN range a {@code CHANGES} query reads, in the stream's offset terms: the changes committed
 * after {@link #after()} (exclusive, as a stream offset is the last processed commit) up to
 * {@link #upTo()} (inclusive). Resolved once, when Spark loads the changelog, from the query's
 * bounds: versions are commit LSNs ({@code 0x} + 20 hex digits, as {@code _commit_version} shows
 * them; {@code 0x} optional, any case), timestamps are commit times (UTC, compared to the
 * millisecond as {@code cdc.lsn_time_mapping} holds them). No Spark types: both Spark lines compile it.
 */
public record ChangeRange(Lsn after, Lsn upTo) {

  /** True when no commit lies in the range. */
  public boolean isEmpty() {
    return upTo.compareTo(after) <= 0;
  }

  /** The range between commit LSNs; no ending version: the newest commit now. */
  public static ChangeRange ofVersions(CdcClient client, String start, boolean startInclusive,
      Optional<String> end, boolean endInclusive) {
    Lsn s = Lsn.parse(start);
    Lsn after = startInclusive ? s.decrement() : s;
    Lsn upTo = end.map(Lsn::parse).map(e -> endInclusive ? e : e.decrement()).orElseGet(() -> newest(client));
    return new ChangeRange(after, upTo);
  }

  /**
   * The range between commit times, in microseconds since the epoch (UTC): the commits at or after
   * (after, when exclusive) the start, up to (before, when exclusive) the end; no end: the newest
   * commit now.
   */
  public static ChangeRange ofTimestamps(CdcClient client, String captureInstance, long startMicros,
      boolean startInclusive, Optional<Long> endMicros, boolean endInclusive) {
    Instant s = micros(startMicros);
    Lsn after = lastAtOrBefore(client, startInclusive ? s.minus(1, ChronoUnit.MICROS) : s)
        .orElseGet(() -> beforeOldest(client, captureInstance));
    Lsn upTo = endMicros.map(e -> {
      Instant t = micros(e);
      return lastAtOrBefore(client, endInclusive ? t : t.minus(1, ChronoUnit.MICROS)).orElse(Lsn.ZERO);
    }).orElseGet(() -> newest(client));
    return new ChangeRange(after, upTo);
  }

  /** Every change CDC holds for the capture instance, up to the newest commit now. */
  public static ChangeRange unbounded(CdcClient client, String captureInstance) {
    return new ChangeRange(beforeOldest(client, captureInstance), newest(client));
  }

  private static Optional<Lsn> lastAtOrBefore(CdcClient client, Instant t) {
    return client.lsnAtOrBefore(t);
  }

  private static Lsn beforeOldest(CdcClient client, String captureInstance) {
    return client.minLsn(captureInstance).decrement();
  }

  private static Lsn newest(CdcClient client) {
    return client.maxLsn().orElse(Lsn.ZERO);
  }

  private static Instant micros(long micros) {
    return Instant.EPOCH.plus(micros, ChronoUnit.MICROS);
  }
}
