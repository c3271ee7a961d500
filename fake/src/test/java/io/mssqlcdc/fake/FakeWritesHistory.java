package io.mssqlcdc.fake;

import io.mssqlcdc.client.CdcClient;
import io.mssqlcdc.client.contract.ContractHistory;
import io.mssqlcdc.lsn.Lsn;
import java.time.LocalDateTime;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * A contract history whose writes go to a fresh fake database ({@link FakeContractHistory}) and
 * whose reads go through some other client: a test double wrapping the fake's client, or the
 * stand-in over the fake's files. Subclasses say how a client reads; {@link #close()} closes the fake.
 */
public abstract class FakeWritesHistory implements ContractHistory {
  protected final FakeContractHistory fake = new FakeContractHistory();

  /** The fake's history read through {@code wrap} of each of its clients. */
  public static ContractHistory readThrough(UnaryOperator<CdcClient> wrap) {
    return new FakeWritesHistory() {
      private final CdcClient client = wrap.apply(fake.client());

      @Override
      public CdcClient client() {
        return client;
      }

      @Override
      public CdcClient clientWithClock(String ianaZone) {
        return wrap.apply(fake.clientWithClock(ianaZone));
      }
    };
  }

  @Override
  public String createTrackedTable(String table) {
    return fake.createTrackedTable(table);
  }

  @Override
  public Lsn commit(String table, List<RowOp> ops) {
    return fake.commit(table, ops);
  }

  @Override
  public Lsn commitAt(String table, List<RowOp> ops, LocalDateTime serverTime) {
    return fake.commitAt(table, ops, serverTime);
  }

  @Override
  public void addCaptureInstance(String table, String name, List<String> columns) {
    fake.addCaptureInstance(table, name, columns);
  }

  @Override
  public void cleanup(String captureInstance, Lsn lowWatermark) {
    fake.cleanup(captureInstance, lowWatermark);
  }

  @Override
  public void createTable(String table, List<String> columns, List<String> key) {
    fake.createTable(table, columns, key);
  }

  @Override
  public void insert(String table, List<List<Object>> rows) {
    fake.insert(table, rows);
  }

  @Override
  public void close() {
    fake.close();
  }
}
