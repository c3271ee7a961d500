package io.mssqlcdc.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.mssqlcdc.client.CdcClient;
import io.mssqlcdc.client.ChangeCursor;
import io.mssqlcdc.client.ChangeQuery;
import io.mssqlcdc.client.contract.ContractHistory;
import io.mssqlcdc.client.contract.ContractHistory.RowOp;
import io.mssqlcdc.fake.FakeContractHistory;
import io.mssqlcdc.lsn.Lsn;
import java.time.Instant;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A server whose clock keeps New York time, which has daylight saving (São Paulo has had none
 * since 2019): {@code sourceTimeZone=auto} detects {@code Eastern Standard Time}, and a history in
 * the fall-back hour of 2026-11-01 (01:00-02:00 happens twice) converts to the same UTC instants
 * through SQL Server's {@code AT TIME ZONE} expressions ({@code UtcConversion}, {@code CdcSql} Q13,
 * Q14) as through the fake's {@code CommitTimes}. Needs Docker (a container with {@code TZ}); skipped
 * otherwise.
 */
class DaylightSavingIT {
  private static final String[] LOCAL = {
      "2026-11-01T00:50:00", "2026-11-01T01:20:00", "2026-11-01T01:55:00", // first pass, EDT (UTC-4)
      "2026-11-01T01:05:00", "2026-11-01T01:40:00",                         // second pass, EST (UTC-5)
      "2026-11-01T02:10:00"};
  private static final List<Instant> UTC = List.of(
      Instant.parse("2026-11-01T04:50:00Z"), Instant.parse("2026-11-01T05:20:00Z"), Instant.parse("2026-11-01T05:55:00Z"),
      Instant.parse("2026-11-01T06:05:00Z"), Instant.parse("2026-11-01T06:40:00Z"), Instant.parse("2026-11-01T07:10:00Z"));

  @Test
  void autoDetectsTheWindowsZoneAndConvertsACommitMadeNow() {
    try (SqlServerContractHistory h = new SqlServerContractHistory(ItServer.get("America/New_York"))) {
      String table = ItTables.unique("dstnow");
      h.createTrackedTable(table);
      Instant before = Instant.now().minusSeconds(5);
      Lsn lsn = h.commit(table, List.of(RowOp.insert(1, "a", "1.00")));
      Instant after = Instant.now().plusSeconds(5);
      assertThat(h.client().sourceTimeZone()).isEqualTo("Eastern Standard Time");
      assertThat(h.client().commitTime(lsn)).hasValueSatisfying(t -> assertThat(t).isBetween(before, after));
    }
  }

  @Test
  void aFallBackHistoryConvertsToTheSameInstantsOnSqlServerAndOnTheFake() {
    List<Instant> server;
    try (SqlServerContractHistory h = new SqlServerContractHistory(ItServer.get("America/New_York"))) {
      server = fallBack(h, h.client());
      // a range past the last mapping entry reads nothing (and its drops query scans nothing)
      Lsn max = h.client().maxLsn().orElseThrow();
      assertThat(h.client().commitTime(h.client().incrementLsn(max))).isEmpty();
    }
    List<Instant> fake;
    try (ContractHistory f = new FakeContractHistory()) {
      fake = fallBack(f, f.clientWithClock("America/New_York"));
    }
    assertThat(server).isEqualTo(UTC);
    assertThat(fake).isEqualTo(server);
  }

  /** Commits {@link #LOCAL} and reads their commit times back with {@code reader}: one read, then each. */
  private static List<Instant> fallBack(ContractHistory h, CdcClient reader) {
    String table = ItTables.unique("dst");
    String ci = h.createTrackedTable(table);
    List<Lsn> lsns = new ArrayList<>();
    for (int i = 0; i < LOCAL.length; i++) {
      lsns.add(h.commitAt(table, List.of(RowOp.insert(i + 1, "r", "1.00")), LocalDateTime.parse(LOCAL[i])));
    }
    List<Instant> read = new ArrayList<>();
    try (ChangeCursor c = reader.changes(new ChangeQuery(ci, lsns.get(0), lsns.get(lsns.size() - 1), List.of("id"), true, 100))) {
      while (c.next()) {
        read.add(c.commitTime());
      }
    }
    for (int i = 0; i < lsns.size(); i++) {
      assertThat(reader.commitTime(lsns.get(i))).as("commitTime of %s local", LOCAL[i]).contains(read.get(i));
    }
    return read;
  }
}
