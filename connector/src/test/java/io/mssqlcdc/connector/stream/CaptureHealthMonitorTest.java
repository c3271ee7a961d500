package io.mssqlcdc.connector.stream;

import static io.mssqlcdc.fake.FakeRows.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.client.CaptureHealthRules;
import io.mssqlcdc.client.CaptureHealthRules.State;
import io.mssqlcdc.errors.CdcErrorCode;
import io.mssqlcdc.errors.CdcSourceUnavailableException;
import io.mssqlcdc.fake.FakeCdcClient;
import io.mssqlcdc.fake.FakeCdcDatabase;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The driver's capture-health probe: its interval, its once-only warnings, and the fail threshold (issue 30). */
class CaptureHealthMonitorTest {
  static final Instant T0 = Instant.parse("2026-12-04T10:00:00Z");

  @TempDir Path dir;
  FakeCdcDatabase db;
  final AtomicReference<Instant> now = new AtomicReference<>(T0);
  final Clock clock = new Clock() {
    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now.get();
    }
  };
  final List<String> warnings = new ArrayList<>();

  @BeforeEach
  void setUp() {
    db = FakeCdcDatabase.create(dir).clock(clock);
    db.createTable("dbo", "orders", "order_id int").key("order_id");
    db.enableCdc("dbo", "orders");
    db.commit(tx -> tx.insert("dbo.orders", row("order_id", 1)));
    db.cleanupRetention(Duration.ofDays(3)); // SQL Server's default job
  }

  private CaptureHealthMonitor monitor(Duration interval, Optional<Duration> failAfter) {
    return new CaptureHealthMonitor(new CaptureHealthRules(Duration.ofMinutes(15), Duration.ofMinutes(5),
        Duration.ofHours(24)), interval, failAfter, clock, "dbo_orders");
  }

  private FakeCdcClient client() {
    return db.client(); // observes with the database's (the test's) clock
  }

  @Test
  void probesOncePerIntervalAndWarnsOncePerEventUntilItClears() {
    CaptureHealthMonitor m = monitor(Duration.ofMinutes(5), Optional.empty());
    assertThat(m.metrics()).isEmpty();
    assertThat(m.check(client(), Optional.of(T0), warnings::add)).get().extracting(v -> v.state())
        .isEqualTo(State.RUNNING);
    assertThat(m.metrics()).containsEntry("captureState", "running").containsEntry("captureJobRunning", "true")
        .containsEntry("retentionHeadroomSeconds", "259200.000");

    db.stopCapture();
    now.set(T0.plusSeconds(60));
    assertThat(m.check(client(), Optional.of(T0), warnings::add).orElseThrow().state())
        .as("within the interval: the last verdict, no probe").isEqualTo(State.RUNNING);
    now.set(T0.plusSeconds(300));
    assertThat(m.check(client(), Optional.of(T0), warnings::add).orElseThrow().state()).isEqualTo(State.STOPPED);
    now.set(T0.plusSeconds(600));
    m.check(client(), Optional.of(T0), warnings::add);
    assertThat(warnings).containsExactly("mssql_cdc: capture_stopped: the capture job is not running (threshold 900 s):"
        + " start SQL Server Agent and EXEC sys.sp_cdc_start_job @job_type = N'capture'");
    assertThat(m.metrics()).containsEntry("captureState", "stopped").containsEntry("captureJobRunning", "false")
        .containsEntry("captureStoppedSeconds", "600.000").containsEntry("captureEvents", "capture_stopped");

    db.startCapture();
    now.set(T0.plusSeconds(900));
    assertThat(m.check(client(), Optional.of(T0), warnings::add).orElseThrow().state()).isEqualTo(State.RUNNING);
    assertThat(warnings).last().isEqualTo("mssql_cdc: capture_stopped cleared: capture is running");
  }

  @Test
  void captureStoppedLongerThanTheThresholdFailsTheQuery() {
    CaptureHealthMonitor m = monitor(Duration.ofSeconds(1), Optional.of(Duration.ofMinutes(10)));
    db.stopCapture();
    now.set(T0.plusSeconds(599));
    m.check(client(), Optional.empty(), warnings::add);
    now.set(T0.plusSeconds(601));
    assertThatThrownBy(() -> m.check(client(), Optional.empty(), warnings::add))
        .isInstanceOf(CdcSourceUnavailableException.class)
        .satisfies(e -> assertThat(((CdcSourceUnavailableException) e).code()).isEqualTo(CdcErrorCode.CAPTURE_NOT_RUNNING))
        .hasMessage("MSSQL_CDC-402: CDC capture has been stopped for 601 s, longer than failWhenCaptureStoppedSeconds=600,"
            + " for the stream of capture instance 'dbo_orders': the capture job is not running (threshold 900 s): start"
            + " SQL Server Agent and EXEC sys.sp_cdc_start_job @job_type = N'capture'. The stream resumes from its"
            + " checkpoint once capture runs (nothing was read past its last offset).");
  }

  @Test
  void aLeastPrivilegeLoginIsSaidOnceAndAFailedProbeNeverFails() {
    db.hideCaptureState(true);
    CaptureHealthMonitor m = monitor(Duration.ofSeconds(1), Optional.of(Duration.ofSeconds(1)));
    m.check(client(), Optional.empty(), warnings::add);
    now.set(T0.plusSeconds(5));
    m.check(client(), Optional.empty(), warnings::add);
    assertThat(warnings).singleElement().asString().startsWith("mssql_cdc: capture health is judged without what"
        + " this login cannot read: msdb.dbo.cdc_jobs: the permission was denied (error 229) (the capture job's state");
    assertThat(m.metrics()).containsEntry("captureState", "running").doesNotContainKey("retentionHeadroomSeconds");

    CaptureHealthMonitor fresh = monitor(Duration.ofSeconds(1), Optional.empty());
    assertThat(fresh.check(failingHealth(client()), Optional.empty(), warnings::add)).isEmpty();
    assertThat(warnings).last().asString().startsWith("mssql_cdc: the capture-health probe failed (boom); the stream"
        + " goes on and probes again in 1 s.");
    assertThat(monitor(Duration.ZERO, Optional.of(Duration.ofSeconds(1))).check(client(), Optional.empty(),
        warnings::add)).as("interval 0: off").isEmpty();
  }

  /** {@code delegate} with a probe that fails. */
  private static io.mssqlcdc.client.CdcClient failingHealth(io.mssqlcdc.client.CdcClient delegate) {
    return (io.mssqlcdc.client.CdcClient) java.lang.reflect.Proxy.newProxyInstance(
        io.mssqlcdc.client.CdcClient.class.getClassLoader(), new Class<?>[] {io.mssqlcdc.client.CdcClient.class},
        (proxy, method, args) -> {
          if (method.getName().equals("captureHealth")) {
            throw new IllegalStateException("boom");
          }
          return method.invoke(delegate, args);
        });
  }
}
