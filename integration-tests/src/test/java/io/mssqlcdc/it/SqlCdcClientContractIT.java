package io.mssqlcdc.it;

import io.mssqlcdc.client.contract.CdcClientContractTest;
import io.mssqlcdc.client.contract.ContractHistory;
import org.junit.jupiter.api.BeforeAll;

/** The {@code CdcClient} contract against SQL Server (skipped without Docker or MSSQL_CDC_IT_URL). */
class SqlCdcClientContractIT extends CdcClientContractTest {

  /** Skips the whole class up front: the base class's @AfterEach expects a history to close. */
  @BeforeAll
  static void requireServer() {
    ItServer.get();
  }

  @Override
  protected ContractHistory newHistory() {
    return new SqlServerContractHistory(ItServer.get());
  }
}
