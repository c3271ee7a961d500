package io.mssqlcdc.standin;

import static org.assertj.core.api.Assertions.assertThat;

import io.mssqlcdc.client.contract.CdcClientContractTest;
import io.mssqlcdc.client.contract.ContractHistory;
import java.util.List;
import org.junit.jupiter.api.AfterEach;

/**
 * The {@link io.mssqlcdc.client.CdcClient} contract on {@code SqlCdcClient} through the real
 * mssql-jdbc driver, against the stand-in serving the fake's contract history. mssql-jdbc's
 * defaults: every prepared statement runs once, as {@code sp_executesql}; the session prefix of
 * source-table reads ({@code SET TRANSACTION ISOLATION LEVEL ...; SET LOCK_TIMEOUT n;}) comes as
 * a batch of its own, so that both settings stick to the session.
 */
class StandInContractTest extends CdcClientContractTest {
  @Override
  protected ContractHistory newHistory() {
    return new StandInContractHistory("");
  }

  @AfterEach
  void everyStatementCameAsSpExecutesqlAndTheSessionPrefixAsABatch() {
    List<SqlServerStandIn.Executed> executed = ((StandInContractHistory) history).standIn().executed();
    assertThat(executed).isNotEmpty().filteredOn(e -> e.kind() != Statement.SESSION_PREFIX)
        .extracting(SqlServerStandIn.Executed::via).containsOnly("sp_executesql");
    assertThat(executed).filteredOn(e -> e.kind() == Statement.SESSION_PREFIX)
        .allSatisfy(e -> assertThat(e.via()).isEqualTo("SQL batch"));
  }
}
