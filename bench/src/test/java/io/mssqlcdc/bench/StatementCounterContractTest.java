package io.mssqlcdc.bench;

import io.mssqlcdc.client.CdcClient;
import io.mssqlcdc.client.contract.CdcClientContractTest;
import io.mssqlcdc.client.contract.ContractHistory;
import io.mssqlcdc.fake.FakeWritesHistory;

/** The {@link CdcClient} contract on {@link StatementCounter}'s clients: counting changes no answer. */
class StatementCounterContractTest extends CdcClientContractTest {
  /** The fake's contract history, read through counted clients. */
  @Override
  protected ContractHistory newHistory() {
    return FakeWritesHistory.readThrough(c -> StatementCounter.detached().wrap(c));
  }
}
