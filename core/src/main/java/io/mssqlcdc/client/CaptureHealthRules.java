package io.mssqlcdc.client;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Turns a {@link CaptureHealth} probe into a verdict and its events (issue 30): whether capture is
 * running, stopped or behind, and how long the stream's position has before cleanup removes it. Plain
 * logic: the thresholds are the caller's options.
 *
 * <p>Evidence that capture stopped, strongest first: the capture job not running; its last log scan
 * older than {@code stoppedAfter} (a running job scans every few seconds, quiet or not); the newest
 * {@code cdc.lsn_time_mapping} entry older than {@code stoppedAfter} (a running capture writes an idle
 * entry every few minutes on a quiet database, so only this evidence is left to a login that cannot
 * read the job or the scan sessions). A quiet database with a running capture job raises nothing.
 */
public final class CaptureHealthRules {

  /** Event names, as the facts table's {@code event} column records them. */
  public static final String CAPTURE_STOPPED = "capture_stopped";

  public static final String CAPTURE_LAGGING = "capture_lagging";
  public static final String RETENTION_AT_RISK = "retention_at_risk";

  /** What the probe says about capture. */
  public enum State {
    RUNNING, LAGGING, STOPPED, UNKNOWN
  }

  /** One event: its name and a one-line detail with the figures that raised it. */
  public record Event(String name, String detail) {}

  /**
   * The verdict of one probe.
   *
   * @param state capture's state
   * @param stoppedForSeconds for {@link State#STOPPED}: how long, by the strongest evidence
   * @param captureLagSeconds the scan latency when read, else the mapping's age
   * @param retentionHeadroomSeconds cleanup's retention minus the position's age (negative: cleanup may
   *     already have removed changes the stream has not read); empty without the retention or a position
   * @param events what to record, in order
   */
  public record Verdict(State state, Optional<Double> stoppedForSeconds, Optional<Double> captureLagSeconds,
      Optional<Double> retentionHeadroomSeconds, List<Event> events) {

    public Verdict {
      events = List.copyOf(events);
    }

    /** NULL-able figure for the facts column {@code capture_job_running}: empty when unknown. */
    public Optional<Boolean> jobRunning() {
      return switch (state) {
        case RUNNING, LAGGING -> Optional.of(true);
        case STOPPED -> Optional.of(false);
        case UNKNOWN -> Optional.empty();
      };
    }
  }

  private final Duration stoppedAfter;
  private final Duration lagAbove;
  private final Duration headroomBelow;

  /**
   * @param stoppedAfter a scan or mapping entry older than this means capture stopped
   * @param lagAbove a scan latency above this raises {@link #CAPTURE_LAGGING}
   * @param headroomBelow a retention headroom below this raises {@link #RETENTION_AT_RISK}
   */
  public CaptureHealthRules(Duration stoppedAfter, Duration lagAbove, Duration headroomBelow) {
    this.stoppedAfter = positive(stoppedAfter, "stoppedAfter");
    this.lagAbove = positive(lagAbove, "lagAbove");
    this.headroomBelow = positive(headroomBelow, "headroomBelow");
  }

  /**
   * The verdict of {@code health} for a stream whose position (the commit time of its last read LSN) is
   * {@code position}; empty when the stream has read nothing yet.
   */
  public Verdict judge(CaptureHealth health, Optional<Instant> position) {
    List<Event> events = new ArrayList<>();
    Optional<Double> stoppedFor = stoppedFor(health);
    Optional<Double> lag = health.scanLatencySeconds().or(health::maxLsnAgeSeconds);
    State state;
    if (stoppedFor.isPresent()) {
      state = State.STOPPED;
      events.add(new Event(CAPTURE_STOPPED, stoppedDetail(health, stoppedFor.get())));
    } else if (health.scanLatencySeconds().filter(s -> s > lagAbove.toSeconds()).isPresent()) {
      state = State.LAGGING;
      events.add(new Event(CAPTURE_LAGGING, "the capture job's last log scan was "
          + seconds(health.scanLatencySeconds().get()) + " behind the log (threshold " + seconds(lagAbove.toSeconds())
          + ")"));
    } else if (health.jobRunning().orElse(false) || health.lastScanEnd().isPresent()
        || health.maxLsnTime().isPresent()) {
      state = State.RUNNING;
    } else {
      state = State.UNKNOWN;
    }
    Optional<Double> headroom = health.cleanupRetention().flatMap(r -> position.map(
        p -> r.toMillis() / 1000.0 - Duration.between(p, health.observedAt()).toMillis() / 1000.0));
    if (headroom.filter(h -> h < headroomBelow.toSeconds()).isPresent()) {
      events.add(new Event(RETENTION_AT_RISK, "cleanup (retention " + minutes(health.cleanupRetention().get())
          + ") removes the stream's position in " + seconds(headroom.get()) + " (threshold "
          + seconds(headroomBelow.toSeconds()) + "): the stream must catch up, or the retention grow"));
    }
    return new Verdict(state, stoppedFor, lag, headroom, events);
  }

  private Optional<Double> stoppedFor(CaptureHealth h) {
    if (h.jobRunning().equals(Optional.of(false))) {
      return Optional.of(h.lastScanAgeSeconds().or(h::maxLsnAgeSeconds).orElse(0.0));
    }
    Optional<Double> scan = h.lastScanAgeSeconds();
    if (scan.isPresent()) {
      return scan.filter(s -> s > stoppedAfter.toSeconds());
    }
    if (h.jobRunning().isPresent()) {
      return Optional.empty(); // the job runs and no scan is readable: no evidence against it
    }
    return h.maxLsnAgeSeconds().filter(s -> s > stoppedAfter.toSeconds());
  }

  private String stoppedDetail(CaptureHealth h, double stoppedFor) {
    String evidence;
    if (h.jobRunning().equals(Optional.of(false))) {
      evidence = "the capture job is not running";
    } else if (h.lastScanEnd().isPresent()) {
      evidence = "the capture job's last log scan ended " + seconds(stoppedFor) + " ago";
    } else {
      evidence = "the newest cdc.lsn_time_mapping entry is " + seconds(stoppedFor)
          + " old and the login cannot read the capture job's state (" + String.join("; ", h.unreadable()) + ")";
    }
    return evidence + " (threshold " + seconds(stoppedAfter.toSeconds())
        + "): start SQL Server Agent and EXEC sys.sp_cdc_start_job @job_type = N'capture'";
  }

  private static String seconds(double s) {
    return String.format(Locale.ROOT, "%.0f s", s);
  }

  private static String minutes(Duration d) {
    return d.toMinutes() + " min";
  }

  private static Duration positive(Duration d, String name) {
    if (d == null || d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(name + " must be a positive duration, got " + d);
    }
    return d;
  }
}
