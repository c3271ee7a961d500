package io.mssqlcdc.client.contract;

import static org.assertj.core.api.Assertions.assertThat;

import io.mssqlcdc.client.CdcClient;
import io.mssqlcdc.client.contract.ContractHistory.RowOp;
import io.mssqlcdc.lsn.Lsn;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every {@link CdcClient} must have, run against the fake (unit tests) and
 * against SQL Server (integration tests) through empty subclasses that only say how to open a
 * {@link ContractHistory}. Each test scripts its own table, named after a per-test counter, so
 * a shared server can host them all.
 */
public abstract class CdcClientContractTest {
  private static int tableCounter;

  protected ContractHistory history;
  protected CdcClient client;

  /** A new, empty history for one test; closed after the test. */
  protected abstract ContractHistory newHistory();

  @BeforeEach
  void openHistory() {
    history = newHistory();
    client = history.client();
  }

  @AfterEach
  void closeHistory() {
    history.close();
  }

  /** A table name unique within this JVM run. */
  protected static synchronized String tableName(String prefix) {
    return prefix + "_" + System.nanoTime() % 100_000 + "_" + (++tableCounter);
  }

  @Test
  void maxLsnIsTheLastCommitAfterACommit() {
    String ci = history.createTrackedTable(tableName("max"));
    Lsn lsn = history.commit(ci.substring(4), List.of(RowOp.insert(1, "a", "1.00")));
    assertThat(client.maxLsn()).isPresent();
    assertThat(client.maxLsn().get()).isGreaterThanOrEqualTo(lsn);
  }
}
