package io.mssqlcdc.client.jdbc;

import io.mssqlcdc.client.CdcClient;
import io.mssqlcdc.client.CdcClientProvider;
import io.mssqlcdc.options.CdcReaderOptions;

/** {@code backend=jdbc} (the default): {@link SqlCdcClient} over mssql-jdbc. */
public final class JdbcCdcClientProvider implements CdcClientProvider {
  @Override
  public String backend() {
    return "jdbc";
  }

  @Override
  public CdcClient open(CdcReaderOptions options) {
    return SqlCdcClient.open(options);
  }
}
