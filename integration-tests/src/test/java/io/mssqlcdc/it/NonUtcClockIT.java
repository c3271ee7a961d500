package io.mssqlcdc.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.mssqlcdc.client.contract.ContractHistory.RowOp;
import io.mssqlcdc.client.jdbc.SqlCdcClient;
import io.mssqlcdc.lsn.Lsn;
import io.mssqlcdc.options.CdcReaderOptions;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A server whose clock runs in São Paulo (UTC-3): commit times still come out as UTC, whether the
 * zone is detected ({@code auto}) or given as a Windows name or a fixed offset.
 */
class NonUtcClockIT {

  @Test
  void commitTimesAreUtcOnASaoPauloClock() {
    ItServer server = ItServer.get("America/Sao_Paulo");
    try (SqlServerContractHistory h = new SqlServerContractHistory(server)) {
      String table = ItTables.unique("tz");
      String ci = h.createTrackedTable(table);
      Instant before = Instant.now().minusSeconds(5);
      Lsn lsn = h.commit(table, List.of(RowOp.insert(1, "a", "1.00")));
      Instant after = Instant.now().plusSeconds(5);

      String detected = h.client().sourceTimeZone();
      assertThat(detected).as("the server's own name of its clock").isEqualTo(server.scalar("SELECT CURRENT_TIMEZONE_ID()"));
      assertThat(server.scalar("SELECT current_utc_offset FROM sys.time_zone_info WHERE name = ?", detected))
          .as("São Paulo's offset (no daylight saving since 2019)").isEqualTo("-03:00");
      assertThat(h.client().commitTime(lsn)).hasValueSatisfying(t -> assertThat(t).isBetween(before, after));
      for (String zone : List.of(detected, "UTC-03:00")) {
        try (SqlCdcClient c = SqlCdcClient.open(CdcReaderOptions.parse(Map.of("captureInstance", ci,
            "connectionString", server.url(), "sourceTimeZone", zone), CdcReaderOptions.Reader.STREAM))) {
          assertThat(c.commitTime(lsn)).as(zone).hasValueSatisfying(t -> assertThat(t).isBetween(before, after));
          assertThat(ItTables.readAll(c, ci, lsn, lsn, List.of("id"), true)).hasSize(1);
        }
      }
    }
  }
}
