package io.mssqlcdc.connector.snapshot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.client.CaptureInstance;
import io.mssqlcdc.errors.CdcConfigException;
import io.mssqlcdc.lsn.Lsn;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SnapshotStampTest {
  private static final Lsn L10 = Lsn.of(0, 10);
  private static final Lsn L20 = Lsn.of(0, 20);

  private static CaptureInstance instance(Lsn start) {
    return new CaptureInstance("dbo_t", "dbo", "t", start, List.of("id"), null);
  }

  @Test
  void maxLsnWithItsCommitTime() {
    StubCdcClient c = new StubCdcClient();
    c.maxLsn = Optional.of(L20);
    c.commitTimes.put(L20, Instant.parse("2026-01-02T03:04:05.678Z"));

    SnapshotStamp s = SnapshotStamp.take(c, instance(L10), Optional.empty());

    assertThat(s).isEqualTo(new SnapshotStamp(L20, Instant.parse("2026-01-02T03:04:05.678Z")));
  }

  @Test
  void anInstanceNewerThanMaxLsnStampsJustBeforeItsStart() {
    StubCdcClient c = new StubCdcClient();
    c.maxLsn = Optional.of(L10);

    assertThat(SnapshotStamp.take(c, instance(L20), Optional.empty()))
        .as("max(max_lsn, decrement(start_lsn)), no commit time for a non-commit LSN")
        .isEqualTo(new SnapshotStamp(Lsn.of(0, 19), null));
    c.maxLsn = Optional.empty();
    assertThat(SnapshotStamp.take(c, instance(L20), Optional.empty()).lsn()).isEqualTo(Lsn.of(0, 19));
  }

  @Test
  void theSnapshotLsnOptionWinsWithoutAskingForMaxLsn() {
    StubCdcClient c = new StubCdcClient();
    c.maxLsn = Optional.of(L20);
    c.commitTimes.put(L10, Instant.EPOCH);

    assertThat(SnapshotStamp.take(c, instance(L10), Optional.of(L10))).isEqualTo(new SnapshotStamp(L10, Instant.EPOCH));
    assertThat(c.calls).doesNotContain("maxLsn");
  }

  @Test
  void nothingCapturedYetFails() {
    StubCdcClient c = new StubCdcClient();
    assertThatThrownBy(() -> SnapshotStamp.take(c, instance(null), Optional.empty()))
        .isInstanceOf(CdcConfigException.class)
        .hasMessageStartingWith("MSSQL_CDC-114: dbo_t: capture has not written to this database yet");
  }
}
