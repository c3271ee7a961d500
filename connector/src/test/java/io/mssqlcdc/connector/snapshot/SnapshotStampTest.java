package io.mssqlcdc.connector.snapshot;

import static io.mssqlcdc.fake.FakeRows.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.client.CaptureInstance;
import io.mssqlcdc.client.CdcClient;
import io.mssqlcdc.connector.FakeProbe;
import io.mssqlcdc.errors.CdcConfigException;
import io.mssqlcdc.fake.FakeCdcDatabase;
import io.mssqlcdc.lsn.Lsn;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDateTime;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The snapshot's stamp over the fake (server clock UTC): which LSN, which commit time, which calls. */
@Tag("spark")
class SnapshotStampTest {
  @TempDir Path tmp;
  FakeCdcDatabase db;
  FakeProbe probe;
  CdcClient client;

  @BeforeEach
  void setUp() {
    db = FakeCdcDatabase.create(tmp.resolve("db"));
    db.createTable("dbo", "t", "id int").key("id");
    db.enableCdc("dbo", "t");
    probe = FakeProbe.detached();
    client = probe.wrap(db.client());
  }

  private Lsn insertAt(String serverTime, int id) {
    return db.commitAt(LocalDateTime.parse(serverTime), tx -> tx.insert("t", row("id", id)));
  }

  private CaptureInstance instance(String name) {
    return client.captureInstances(name).get(0);
  }

  @Test
  void maxLsnWithItsCommitTime() {
    insertAt("2026-01-02T03:04:00", 1);
    Lsn last = insertAt("2026-01-02T03:04:05.678", 2);

    SnapshotStamp s = SnapshotStamp.take(client, instance("dbo_t"), Optional.empty());

    assertThat(s).isEqualTo(new SnapshotStamp(last, Instant.parse("2026-01-02T03:04:05.678Z")));
  }

  @Test
  void anInstanceNewerThanMaxLsnStampsJustBeforeItsStart() {
    db.createTable("dbo", "u", "id int").key("id");
    db.enableCdc("dbo", "u");
    assertThat(client.maxLsn()).as("no commit yet").isEmpty();
    Lsn start = instance("dbo_u").startLsn();
    assertThat(SnapshotStamp.take(client, instance("dbo_u"), Optional.empty()))
        .as("no max_lsn: decrement(start_lsn), no commit time for a non-commit LSN")
        .isEqualTo(new SnapshotStamp(start.decrement(), null));

    Lsn committed = insertAt("2026-01-02T03:04:05", 1);
    db.createTable("dbo", "v", "id int").key("id");
    db.enableCdc("dbo", "v");
    Lsn vStart = instance("dbo_v").startLsn();
    assertThat(vStart).as("enabled after the last commit").isGreaterThan(committed);
    assertThat(SnapshotStamp.take(client, instance("dbo_v"), Optional.empty()))
        .as("max(max_lsn, decrement(start_lsn))").isEqualTo(new SnapshotStamp(vStart.decrement(), null));
  }

  @Test
  void theSnapshotLsnOptionWinsWithoutAskingForMaxLsn() {
    Lsn first = insertAt("2026-01-02T03:04:05", 1);
    insertAt("2026-01-02T03:05:00", 2);
    probe.failNext("maxLsn", 1);

    assertThat(SnapshotStamp.take(client, instance("dbo_t"), Optional.of(first)))
        .isEqualTo(new SnapshotStamp(first, Instant.parse("2026-01-02T03:04:05Z")));
    assertThat(probe.calls("maxLsn")).isZero();
  }

  @Test
  void nothingCapturedYetFails() {
    // a capture instance capture has not processed yet reports no start LSN (SQL Server: NULL start_lsn)
    CaptureInstance notStarted = new CaptureInstance("dbo_t", "dbo", "t", null, List.of("id"), null);
    assertThatThrownBy(() -> SnapshotStamp.take(client, notStarted, Optional.empty()))
        .isInstanceOf(CdcConfigException.class)
        .hasMessageStartingWith("MSSQL_CDC-114: dbo_t: capture has not written to this database yet");
  }
}
