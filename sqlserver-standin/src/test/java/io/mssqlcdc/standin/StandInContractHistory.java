package io.mssqlcdc.standin;

import io.mssqlcdc.client.CdcClient;
import io.mssqlcdc.client.contract.ContractHistory;
import io.mssqlcdc.fake.FakeContractHistory;
import io.mssqlcdc.lsn.Lsn;
import java.util.List;

/**
 * The contract history of the fake ({@link FakeContractHistory}), read through the stand-in:
 * writes go to a fresh fake database, reads through {@code SqlCdcClient} → mssql-jdbc → TDS →
 * the stand-in → that database.
 */
final class StandInContractHistory implements ContractHistory {
  private final FakeContractHistory fake = new FakeContractHistory();
  private final SqlServerStandIn standIn;
  private final CdcClient client;

  /** @param urlProperties extra JDBC URL properties ({@code key=value;...}) */
  StandInContractHistory(String urlProperties) {
    standIn = SqlServerStandIn.start(fake.path());
    client = StandInClients.open(standIn, urlProperties);
  }

  SqlServerStandIn standIn() {
    return standIn;
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
  public void addCaptureInstance(String table, String name, List<String> columns) {
    fake.addCaptureInstance(table, name, columns);
  }

  @Override
  public void cleanup(String captureInstance, Lsn lowWatermark) {
    fake.cleanup(captureInstance, lowWatermark);
  }

  @Override
  public CdcClient client() {
    return client;
  }

  @Override
  public void close() {
    try {
      client.close();
      standIn.close();
    } finally {
      fake.close();
    }
  }
}
