package io.mssqlcdc.standin;

import io.mssqlcdc.client.CdcClient;
import io.mssqlcdc.fake.FakeContractHistory;
import io.mssqlcdc.fake.FakeWritesHistory;
import java.util.ArrayList;
import java.util.List;

/**
 * The contract history of the fake ({@link FakeContractHistory}), read through the stand-in:
 * writes go to a fresh fake database, reads through {@code SqlCdcClient} → mssql-jdbc → TDS →
 * the stand-in → that database.
 */
final class StandInContractHistory extends FakeWritesHistory {
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
