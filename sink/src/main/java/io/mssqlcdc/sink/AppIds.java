package io.mssqlcdc.sink;

import io.mssqlcdc.errors.CdcErrors;
import io.mssqlcdc.lsn.Lsn;
import java.io.Serializable;
import java.util.Objects;

/**
 * The idempotency keys of one stream (docs/decisions/0005-txn-app-ids.md, reference-behaviour
 * §3.1 and §33 point 1). Two kinds, never mixed:
 *
 * <ul>
 *   <li>keys that carry the generation: the <em>sink id</em> ({@code <app_id>} in generation 0,
 *       {@code <app_id>.g<n>} after n re-snapshots) keys bronze micro-batch appends (their facts
 *       rows carry no key since issue 25; the reference's {@code <sink id>#facts} stays reserved).
 *       A new generation restarts batch ids at 0, so it needs keys of its own, or Delta would skip
 *       its batches as written;
 *   <li>keys that never do: every snapshot-related key uses the base {@code app_id} in every
 *       generation: {@code #events} (bootstrap and resnapshot rows, version = generation),
 *       {@code #snapshots} (chunked opens), {@code #snapplan.<S>}, {@code #snapchunks.<S>} and the
 *       bronze wave key {@code #snap.<S>}.
 * </ul>
 * Delta skips a write whose {@code txnVersion} is at or below the last one it recorded for the
 * {@code txnAppId}: all idempotency relies on that.
 *
 * @param base the app id the user gave
 */
public record AppIds(String base) implements Serializable {

  public AppIds {
    Objects.requireNonNull(base, "appId");
    if (base.isBlank()) {
      throw CdcErrors.invalidOption("appId", base, "a non-blank name, stable for the checkpoint's lifetime",
          "e.g. 'orders-bronze'; a new checkpoint needs a new app id");
    }
    if (base.indexOf('#') >= 0) {
      throw CdcErrors.invalidOption("appId", base, "a name without '#'",
          "the library appends '#facts', '#events' and other suffixes to it");
    }
  }

  /** The sink id of {@code generation}: the base in generation 0, {@code <base>.g<n>} after. */
  public String sinkId(int generation) {
    if (generation < 0) {
      throw new IllegalArgumentException("generation " + generation + " < 0");
    }
    return generation == 0 ? base : base + ".g" + generation;
  }

  /** {@code <app_id>#events}: bootstrap and resnapshot rows, version = generation. */
  public String eventsKey() {
    return base + "#events";
  }

  /** {@code <app_id>#snapshots}: chunked snapshot opens, version = generation. */
  public String snapshotsKey() {
    return base + "#snapshots";
  }

  /** {@code <app_id>#snapplan.<S>}: a chunked snapshot's plan, version 0. */
  public String snapPlanKey(Lsn s) {
    return base + "#snapplan." + s.hex();
  }

  /** {@code <app_id>#snapchunks.<S>}: a chunked snapshot's chunk rows, version = wave. */
  public String snapChunksKey(Lsn s) {
    return base + "#snapchunks." + s.hex();
  }

  /** {@code <app_id>#snap.<S>}: a chunked snapshot's bronze waves, version = wave. */
  public String snapKey(Lsn s) {
    return base + "#snap." + s.hex();
  }

  /** Whether {@code appId} (a facts row's) is of this stream's family: {@code <base>} or {@code <base>.g<n>}. */
  public boolean isFamily(String appId) {
    if (appId == null) {
      return false;
    }
    if (appId.equals(base)) {
      return true;
    }
    if (!appId.startsWith(base + ".g") || appId.length() == base.length() + 2) {
      return false;
    }
    for (int i = base.length() + 2; i < appId.length(); i++) {
      if (!Character.isDigit(appId.charAt(i))) {
        return false;
      }
    }
    return true;
  }
}
