package io.mssqlcdc.sink.pipeline;

import io.mssqlcdc.client.CaptureInstance;
import io.mssqlcdc.client.CdcClient;
import io.mssqlcdc.lsn.Lsn;
import java.util.List;
import java.util.Optional;

/**
 * Whether CDC still holds the changes right after an offset (reference-behaviour §10.2 step 5):
 * the low watermark that matters is the {@code min_lsn} of the instance that holds the next
 * commit: the table's newest instance whose start is at or before it, else its oldest.
 */
final class RetentionCheck {
  private RetentionCheck() {}

  /**
   * A loss after {@code lsn}.
   *
   * @param instance the instance that should hold the changes after {@code lsn}
   * @param next the first LSN after {@code lsn}
   * @param low that instance's {@code min_lsn}, above {@code next}
   */
  record Loss(String instance, Lsn next, Lsn low) {
    String describe(Lsn after) {
      return instance + ": change data after " + after + " is gone (min_lsn is now " + low + ")";
    }
  }

  /** The loss after {@code lsn}; empty when CDC holds every change after it. */
  static Optional<Loss> after(CdcClient client, String captureInstance, Lsn lsn) {
    List<CaptureInstance> instances = client.captureInstances(captureInstance);
    Lsn next = client.incrementLsn(lsn);
    CaptureInstance holder = instances.get(0);
    for (CaptureInstance ci : instances) {
      if (ci.startLsn() != null && !ci.startLsn().isAfter(next)) {
        holder = ci;
      }
    }
    Lsn low = client.minLsn(holder.name());
    return next.isBefore(low) ? Optional.of(new Loss(holder.name(), next, low)) : Optional.empty();
  }
}
