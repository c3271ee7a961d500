package io.mssqlcdc.standin;

import static org.assertj.core.api.Assertions.assertThat;

import io.mssqlcdc.client.contract.CdcClientContractTest;
import io.mssqlcdc.client.contract.ContractHistory;
import org.junit.jupiter.api.AfterEach;

/**
 * The {@link io.mssqlcdc.client.CdcClient} contract on {@code SqlCdcClient} through the real
 * mssql-jdbc driver, against the stand-in serving the fake's contract history. mssql-jdbc's
 * defaults: every prepared statement runs once, as {@code sp_executesql}.
 */
class StandInContractTest extends CdcClientContractTest {
  @Override
  protected ContractHistory newHistory() {
    return new StandInContractHistory("");
  }

  @AfterEach
  void everyStatementCameAsSpExecutesql() {
    assertThat(((StandInContractHistory) history).standIn().executed()).isNotEmpty()
        .extracting(SqlServerStandIn.Executed::via).containsOnly("sp_executesql");
  }
}
