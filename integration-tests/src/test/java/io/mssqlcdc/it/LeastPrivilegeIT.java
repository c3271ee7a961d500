package io.mssqlcdc.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.client.KeyBucket;
import io.mssqlcdc.client.KeyRange;
import io.mssqlcdc.client.TableRef;
import io.mssqlcdc.client.contract.ContractHistory.RowOp;
import io.mssqlcdc.client.jdbc.SqlCdcClient;
import io.mssqlcdc.errors.CdcPermissionException;
import io.mssqlcdc.lsn.Lsn;
import io.mssqlcdc.options.CdcReaderOptions;
import java.math.BigInteger;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A login with exactly sql/permissions.sql's rights: SELECT on the source table, plus SELECT on
 * the change table. Without the change-table grant the read fails naming that GRANT; the
 * source-table statements (counts, key buckets, keyset bounds, sp_spaceused) need no more.
 */
class LeastPrivilegeIT {

  @Test
  void changeTableGrantIsTheOnlyExtraRight() {
    ItServer server = ItServer.get();
    String table = ItTables.unique("priv");
    try (SqlServerContractHistory admin = new SqlServerContractHistory(server)) {
      String ci = admin.createTrackedTable(table);
      Lsn lsn = admin.commit(table, List.of(RowOp.insert(1, "a", "1.00")));
      ItServer.Login granted = server.tableReader("cdc_reader", table);
      String login = granted.name();
      String password = granted.password();

      try (SqlCdcClient reader = SqlCdcClient.open(CdcReaderOptions.parse(
          Map.of("captureInstance", ci, "connectionString", granted.url()), CdcReaderOptions.Reader.STREAM))) {
        // metadata and LSN functions need no grant beyond the source table
        assertThat(reader.captureInstances(ci)).singleElement().satisfies(i -> {
          assertThat(i.name()).isEqualTo(ci);
          assertThat(i.tableIdentity()).isEqualToIgnoringCase("dbo." + table);
        });
        assertThat(reader.minLsn(ci)).isEqualTo(Lsn.parse(
            server.scalar("SELECT CONVERT(varchar(22), sys.fn_cdc_get_min_lsn(?), 1)", ci)));
        assertThat(reader.maxLsn()).hasValueSatisfying(max -> assertThat(max).isGreaterThanOrEqualTo(lsn));
        assertThat(reader.commitTime(lsn)).as("what a sysadmin's client reads").isEqualTo(admin.client().commitTime(lsn))
            .isPresent();
        assertThat(reader.lsnAtOrBefore(reader.commitTime(lsn).orElseThrow()))
            .hasValueSatisfying(l -> assertThat(l).isGreaterThanOrEqualTo(lsn));
        // reconcile's and chunked backfill's statements: the source-table grant is enough
        TableRef t = new TableRef("dbo", table);
        assertThat(reader.rowEstimate(t)).isEqualTo(1);
        assertThat(reader.countRows(t)).isEqualTo(1);
        assertThat(reader.keyBuckets(t, "id", 10, KeyRange.ALL)).containsExactly(new KeyBucket(0, 1, BigInteger.ONE));
        assertThat(reader.keyMax(t, List.of("id"))).contains(List.of(1));
        assertThat(reader.keyBound(t, List.of("id"), new KeyRange(List.of(0), null), 0)).contains(List.of(1));
        assertThatThrownBy(() -> ItTables.readAll(reader, ci, lsn, lsn, List.of("id"), true))
            .isInstanceOf(CdcPermissionException.class)
            .hasMessageContaining("GRANT SELECT ON cdc.[" + ci + "_CT] TO [" + login + "];")
            .hasMessageNotContaining(password);

        server.exec("GRANT SELECT ON cdc.[" + ci + "_CT] TO [" + login + "]");
        assertThat(ItTables.readAll(reader, ci, lsn, lsn, List.of("id"), true)).hasSize(1);
      }
    }
  }
}
