package io.mssqlcdc.standin;

import static org.assertj.core.api.Assertions.assertThat;

import io.mssqlcdc.client.contract.CdcClientContractTest;
import io.mssqlcdc.client.contract.ContractHistory;
import java.util.Set;
import java.util.concurrent.ConcurrentSkipListSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;

/**
 * The contract again with the driver preparing on first call and pooling statements, so the
 * statements arrive as {@code sp_prepexec}, then {@code sp_execute} for a pooled handle, and the
 * driver's {@code EXEC sp_unprepare} batches when the pool evicts handles: the RPC paths a tuned
 * connection string takes.
 */
class StandInPreparedContractTest extends CdcClientContractTest {
  private static final Set<String> VIA = new ConcurrentSkipListSet<>();

  @Override
  protected ContractHistory newHistory() {
    return new StandInContractHistory(
        "enablePrepareOnFirstPreparedStatementCall=true;disableStatementPooling=false;statementPoolingCacheSize=4");
  }

  @AfterEach
  void recordHowStatementsCame() {
    ((StandInContractHistory) history).standIn().executed().forEach(e -> VIA.add(e.via()));
  }

  @AfterAll
  static void theDriverPreparedReusedAndDiscardedHandles() {
    assertThat(VIA).contains("sp_prepexec", "sp_execute", "sp_unprepare batch").doesNotContain("sp_executesql");
  }
}
