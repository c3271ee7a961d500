package io.mssqlcdc.bench;

import io.mssqlcdc.client.CdcClient;
import io.mssqlcdc.client.contract.CdcClientContractTest;
import io.mssqlcdc.client.contract.ContractHistory;
import io.mssqlcdc.fake.FakeContractHistory;
import io.mssqlcdc.lsn.Lsn;
import java.time.LocalDateTime;
import java.util.List;

/** The {@link CdcClient} contract on {@link StatementCounter}'s clients: counting changes no answer. */
class StatementCounterContractTest extends CdcClientContractTest {
  @Override
  protected ContractHistory newHistory() {
    return new Counted(new FakeContractHistory());
  }

  /** The fake's contract history, read through counted clients. */
  private static final class Counted implements ContractHistory {
    private final FakeContractHistory history;
    private final CdcClient client;

    Counted(FakeContractHistory history) {
      this.history = history;
      this.client = StatementCounter.detached().wrap(history.client());
    }

    @Override
    public String createTrackedTable(String table) {
      return history.createTrackedTable(table);
    }

    @Override
    public Lsn commit(String table, List<RowOp> ops) {
      return history.commit(table, ops);
    }

    @Override
    public Lsn commitAt(String table, List<RowOp> ops, LocalDateTime serverTime) {
      return history.commitAt(table, ops, serverTime);
    }

    @Override
    public CdcClient clientWithClock(String ianaZone) {
      return StatementCounter.detached().wrap(history.clientWithClock(ianaZone));
    }

    @Override
    public void addCaptureInstance(String table, String name, List<String> columns) {
      history.addCaptureInstance(table, name, columns);
    }

    @Override
    public void cleanup(String captureInstance, Lsn lowWatermark) {
      history.cleanup(captureInstance, lowWatermark);
    }

    @Override
    public void createTable(String table, List<String> columns, List<String> key) {
      history.createTable(table, columns, key);
    }

    @Override
    public void insert(String table, List<List<Object>> rows) {
      history.insert(table, rows);
    }

    @Override
    public CdcClient client() {
      return client;
    }

    @Override
    public void close() {
      history.close();
    }
  }
}
