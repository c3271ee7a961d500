package io.mssqlcdc.connector;

import io.mssqlcdc.client.CdcClient;
import io.mssqlcdc.client.contract.CdcClientContractTest;
import io.mssqlcdc.client.contract.ContractHistory;
import io.mssqlcdc.fake.FakeWritesHistory;
import org.junit.jupiter.api.Tag;

/**
 * The {@link CdcClient} contract, on {@link FakeProbe}'s clients: the connector tests' one test
 * double behaves like the fake (and so like SQL Server) wherever it does not inject a fault.
 */
@Tag("spark")
class FakeProbeContractTest extends CdcClientContractTest {
  /** The fake's contract history, read through a probe's clients. */
  @Override
  protected ContractHistory newHistory() {
    return FakeWritesHistory.readThrough(c -> FakeProbe.detached().wrap(c));
  }
}
