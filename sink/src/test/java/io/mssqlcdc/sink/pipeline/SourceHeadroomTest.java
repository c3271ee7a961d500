package io.mssqlcdc.sink.pipeline;

import static io.mssqlcdc.fake.FakeRows.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.mssqlcdc.fake.FakeCdcDatabase;
import io.mssqlcdc.lsn.Lsn;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The retention headroom {@code backfill()} reads from the source when the stream's facts hold none. */
class SourceHeadroomTest {
  @TempDir Path tmp;

  private static final Instant T0 = Instant.parse("2026-11-02T08:00:00Z");

  @Test
  void theHeadroomIsThePositionsCommitTimeLessTheRetentionWatermarks() {
    FakeCdcDatabase db = FakeCdcDatabase.create(tmp.resolve("db"));
    db.clock(Clock.fixed(T0, ZoneOffset.UTC));
    db.createTable("dbo", "t", "id int").key("id");
    db.enableCdc("dbo", "t");
    db.commit(tx -> tx.insert("t", row("id", 1)));
    Lsn first = db.client().maxLsn().orElseThrow();
    db.clock(Clock.fixed(T0.plus(Duration.ofMinutes(150)), ZoneOffset.UTC));
    db.commit(tx -> tx.insert("t", row("id", 2)));
    Lsn second = db.client().maxLsn().orElseThrow();

    // Never cleaned: the low watermark is the instance's start, no commit's; the oldest commit held counts.
    assertThat(SourceHeadroom.hours(db.client(), "dbo_t", second)).contains(2.5);
    assertThat(SourceHeadroom.hours(db.client(), "dbo_t", first)).contains(0.0);
    // Cleaned up to the first commit: the commit at the low watermark.
    db.cleanup("dbo_t", first);
    assertThat(SourceHeadroom.hours(db.client(), "dbo_t", second)).contains(2.5);
    // Cleaned past the position: its commit time is purged too, the source gives no figure.
    db.commit(tx -> tx.insert("t", row("id", 3)));
    db.cleanup("dbo_t", db.client().maxLsn().orElseThrow());
    assertThat(SourceHeadroom.hours(db.client(), "dbo_t", first)).isEmpty();
  }
}
