package io.mssqlcdc.connector.stream;

import io.mssqlcdc.client.CaptureHealth;
import io.mssqlcdc.client.CaptureHealthRules;
import io.mssqlcdc.client.CaptureHealthRules.Event;
import io.mssqlcdc.client.CaptureHealthRules.State;
import io.mssqlcdc.client.CaptureHealthRules.Verdict;
import io.mssqlcdc.client.CdcClient;
import io.mssqlcdc.errors.CdcErrors;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * The stream's capture-health probe on the driver (issue 30): at most one {@link CdcClient#captureHealth()}
 * per interval, judged by {@link CaptureHealthRules}; an event is reported once when it appears (and again
 * only after it cleared), what the login cannot read once per stream; capture stopped for longer than the
 * fail threshold fails the query. A probe that fails is logged and never fails the query.
 */
final class CaptureHealthMonitor {
  private final CaptureHealthRules rules;
  private final Duration interval;
  private final Optional<Duration> failAfter;
  private final Clock clock;
  private final String captureInstance;
  private Instant lastProbe;
  private Verdict last;
  private Set<String> raised = new TreeSet<>();
  private boolean unreadableReported;

  /**
   * @param interval between probes; zero turns the monitor off
   * @param failAfter capture stopped longer than this fails the query; empty: never
   * @param captureInstance the stream's, named in the failure
   */
  CaptureHealthMonitor(CaptureHealthRules rules, Duration interval, Optional<Duration> failAfter, Clock clock,
      String captureInstance) {
    this.rules = rules;
    this.interval = interval;
    this.failAfter = failAfter;
    this.clock = clock;
    this.captureInstance = captureInstance;
  }

  /**
   * Probes when the interval has passed since the last probe (at once the first time) and reports new events
   * and unreadable state to {@code warn}; returns the latest verdict.
   *
   * @param position commit time of the stream's position (for the retention headroom), if known
   * @throws io.mssqlcdc.errors.CdcSourceUnavailableException capture stopped longer than the fail threshold
   */
  Optional<Verdict> check(CdcClient client, Optional<Instant> position, Consumer<String> warn) {
    return check(client, position, warn, e -> {});
  }

  /** As above; each event that appears is also handed to {@code raise} (the next batch's facts event rows). */
  Optional<Verdict> check(CdcClient client, Optional<Instant> position, Consumer<String> warn,
      Consumer<Event> raise) {
    if (interval.isZero()) {
      return Optional.empty();
    }
    Instant now = clock.instant();
    if (lastProbe == null || !now.isBefore(lastProbe.plus(interval))) {
      lastProbe = now;
      CaptureHealth health;
      try {
        health = client.captureHealth();
      } catch (RuntimeException e) {
        warn.accept("mssql_cdc: the capture-health probe failed (" + e.getMessage() + "); the stream goes on and"
            + " probes again in " + interval.toSeconds() + " s.");
        return Optional.ofNullable(last);
      }
      last = rules.judge(health, position);
      report(health, last, warn, raise);
    }
    if (last != null && last.state() == State.STOPPED && failAfter.isPresent()
        && last.stoppedForSeconds().orElse(0.0) > failAfter.get().toSeconds()) {
      throw CdcErrors.captureStoppedTooLong(captureInstance, last.events().get(0).detail(),
          last.stoppedForSeconds().get(), failAfter.get().toSeconds());
    }
    return Optional.ofNullable(last);
  }

  private void report(CaptureHealth health, Verdict v, Consumer<String> warn, Consumer<Event> raise) {
    if (!health.unreadable().isEmpty() && !unreadableReported) {
      unreadableReported = true;
      warn.accept("mssql_cdc: capture health is judged without what this login cannot read: "
          + String.join("; ", health.unreadable()) + " (docs/SQLSERVER.md, permissions: optional grants).");
    }
    Set<String> now = new TreeSet<>();
    for (Event e : v.events()) {
      now.add(e.name());
      if (!raised.contains(e.name())) {
        warn.accept("mssql_cdc: " + e.name() + ": " + e.detail());
        raise.accept(e);
      }
    }
    for (String cleared : raised) {
      if (!now.contains(cleared)) {
        warn.accept("mssql_cdc: " + cleared + " cleared: capture is " + v.state().name().toLowerCase(Locale.ROOT));
      }
    }
    raised = now;
  }

  /** The latest verdict as source metrics (names as the progress shows them); empty before the first probe. */
  Map<String, String> metrics() {
    Map<String, String> m = new LinkedHashMap<>();
    if (last == null) {
      return m;
    }
    m.put("captureState", last.state().name().toLowerCase(Locale.ROOT));
    last.jobRunning().ifPresent(r -> m.put("captureJobRunning", Boolean.toString(r)));
    last.stoppedForSeconds().ifPresent(s -> m.put("captureStoppedSeconds", seconds(s)));
    last.captureLagSeconds().ifPresent(s -> m.put("captureScanLagSeconds", seconds(s)));
    last.retentionHeadroomSeconds().ifPresent(s -> m.put("retentionHeadroomSeconds", seconds(s)));
    if (!last.events().isEmpty()) {
      m.put("captureEvents", String.join(",", last.events().stream().map(Event::name).toList()));
    }
    return m;
  }

  private static String seconds(double s) {
    return String.format(Locale.ROOT, "%.3f", s);
  }
}
