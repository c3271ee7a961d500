package io.mssqlcdc.standin;

import io.mssqlcdc.client.jdbc.SqlCdcClient;
import io.mssqlcdc.options.CdcReaderOptions;
import java.util.LinkedHashMap;
import java.util.Map;

/** {@link SqlCdcClient}s opened the way the connector opens them ({@code backend=jdbc} options), on a stand-in. */
public final class StandInClients {
  private StandInClients() {}

  /** The reader options of a client on {@code standIn}, URL properties {@code extra} appended, then {@code kv}. */
  public static Map<String, String> options(SqlServerStandIn standIn, String extra, String... kv) {
    Map<String, String> o = new LinkedHashMap<>();
    o.put("backend", "jdbc");
    o.put("connectionString", standIn.jdbcUrl(extra));
    for (int i = 0; i < kv.length; i += 2) {
      o.put(kv[i], kv[i + 1]);
    }
    o.putIfAbsent("captureInstance", "dbo_unused");
    return o;
  }

  /** {@code SqlCdcClient.open} of the options above: the production path (retries with real backoff included). */
  public static SqlCdcClient open(SqlServerStandIn standIn, String extra, String... kv) {
    return SqlCdcClient.open(CdcReaderOptions.parse(options(standIn, extra, kv), CdcReaderOptions.Reader.STREAM));
  }
}
