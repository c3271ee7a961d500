package io.mssqlcdc.fake;

import io.mssqlcdc.client.contract.CdcClientContractTest;
import io.mssqlcdc.client.contract.ContractHistory;

/** The {@link io.mssqlcdc.client.CdcClient} contract, on the fake. */
class FakeCdcClientContractTest extends CdcClientContractTest {
  @Override
  protected ContractHistory newHistory() {
    return new FakeContractHistory();
  }
}
