package io.mssqlcdc.standin;

import io.mssqlcdc.client.contract.CdcClientContractTest;
import io.mssqlcdc.client.contract.ContractHistory;

/**
 * The contract again with the driver preparing on first call and pooling statements, so the
 * statements arrive as {@code sp_prepexec}, then {@code sp_execute} for a pooled handle, and
 * {@code sp_unprepare} when the pool evicts one: the RPC paths a tuned connection string takes.
 */
class StandInPreparedContractTest extends CdcClientContractTest {
  @Override
  protected ContractHistory newHistory() {
    return new StandInContractHistory(
        "enablePrepareOnFirstPreparedStatementCall=true;disableStatementPooling=false;statementPoolingCacheSize=4");
  }
}
