package io.mssqlcdc.client;

import io.mssqlcdc.options.CdcReaderOptions;

/**
 * Opens a {@link CdcClient} for one {@code backend} option value. Implementations register in
 * {@code META-INF/services/io.mssqlcdc.client.CdcClientProvider}; {@link CdcClients} finds them
 * with {@link java.util.ServiceLoader}, so the fake plugs in without the connector depending on
 * it.
 */
public interface CdcClientProvider {
  /** The {@code backend} option value this provider serves ({@code jdbc}, {@code fake}). */
  String backend();

  /** A new client; the caller closes it. */
  CdcClient open(CdcReaderOptions options);
}
