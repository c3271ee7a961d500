package io.mssqlcdc.standin;

import io.mssqlcdc.client.CdcClient;
import io.mssqlcdc.client.contract.ContractHistory;
import io.mssqlcdc.fake.FakeContractHistory;
import io.mssqlcdc.lsn.Lsn;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;

/**
 * The contract history of the fake ({@link FakeContractHistory}), read through the stand-in:
 * writes go to a fresh fake database, reads through {@code SqlCdcClient} → mssql-jdbc → TDS →
 * the stand-in → that database.
 */
final class StandInContractHistory implements ContractHistory {
  private final FakeContractHistory fake = new FakeContractHistory();
  private final SqlServerStandIn standIn;
  private final String urlProperties;
  private final CdcClient client;
  private final List<CdcClient> others = new ArrayList<>();

  /** @param urlProperties extra JDBC URL properties ({@code key=value;...}) */
  StandInContractHistory(String urlProperties) {
    this.urlProperties = urlProperties;
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

  /** The fake's {@code commitAt}: the commit's (and the idle entries') {@code tran_end_time} the stand-in then serves. */
  @Override
  public Lsn commitAt(String table, List<RowOp> ops, LocalDateTime serverTime) {
    return fake.commitAt(table, ops, serverTime);
  }

  /**
   * A client through the stand-in whose {@code sourceTimeZone} is the Windows name of {@code
   * ianaZone} ({@code America/New_York} is {@code Eastern Standard Time}), as a SQL Server with
   * that clock would be configured; the stand-in evaluates the client's {@code AT TIME ZONE}
   * expressions in that zone over the fake's local commit times.
   */
  @Override
  public CdcClient clientWithClock(String ianaZone) {
    String windows = WindowsZones.name(ianaZone).orElseThrow(() -> new IllegalArgumentException(
        "No Windows zone name known to the stand-in for " + ianaZone + ": add it to WindowsZones"));
    CdcClient c = StandInClients.open(standIn, urlProperties, "sourceTimeZone", windows);
    others.add(c);
    return c;
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
      others.forEach(CdcClient::close);
      standIn.close();
    } finally {
      fake.close();
    }
  }
}
