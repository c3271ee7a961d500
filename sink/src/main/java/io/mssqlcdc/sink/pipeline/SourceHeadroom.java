package io.mssqlcdc.sink.pipeline;

import io.mssqlcdc.client.CdcClient;
import io.mssqlcdc.lsn.Lsn;
import io.mssqlcdc.sink.chunked.ChunkedSnapshots;
import java.time.Instant;
import java.util.Optional;

/**
 * A stream's retention headroom read from the source, as its facts would show it
 * ({@code retention_headroom_hours}, reference-behaviour §14.2): hours from the capture instance's
 * retention watermark (the commit time at or before {@code sys.fn_cdc_get_min_lsn}) to the
 * commit time at or before the stream's position, to 0.01 h. For {@code backfill()}'s throttle
 * when the stream has written no micro-batch with the figure. Plain logic over a {@link CdcClient}.
 *
 * <p>Where no commit lies at or below the low watermark (cleanup has never purged anything: the
 * instance's start LSN is no commit's), the watermark is the oldest commit the instance still
 * holds, the first after it. Cleanup cannot purge that before the retention period passes it, so
 * the figure then under-states the time left, never over-states it.
 */
final class SourceHeadroom {
  private SourceHeadroom() {}

  /** The headroom in hours; empty when the source has no commit time for either end. */
  static Optional<Double> hours(CdcClient client, String captureInstance, Lsn position) {
    Lsn low = client.minLsn(captureInstance);
    Optional<Instant> watermark = client.commitTimeAtOrBefore(low)
        .or(() -> client.nthCommitAfter(low, 1).flatMap(client::commitTime));
    Optional<Instant> at = client.commitTimeAtOrBefore(position);
    if (watermark.isEmpty() || at.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(ChunkedSnapshots.headroomHours(watermark.get(), at.get()));
  }
}
