package io.mssqlcdc.standin;

import io.mssqlcdc.client.contract.CdcClientContractTest;
import io.mssqlcdc.client.contract.ContractHistory;

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
}
