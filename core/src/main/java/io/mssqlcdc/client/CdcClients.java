package io.mssqlcdc.client;

import io.mssqlcdc.errors.CdcConfigException;
import io.mssqlcdc.errors.CdcErrorCode;
import io.mssqlcdc.options.CdcReaderOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;

/**
 * The one factory of {@link CdcClient}s, used on the driver and on every executor: it picks the
 * {@link CdcClientProvider} registered for the {@code backend} option.
 */
public final class CdcClients {
  private CdcClients() {}

  /** Opens a client for {@code options.backend()}. */
  public static CdcClient open(CdcReaderOptions options) {
    String backend = options.backend();
    List<String> found = new ArrayList<>();
    for (ClassLoader loader : loaders()) {
      for (CdcClientProvider p : ServiceLoader.load(CdcClientProvider.class, loader)) {
        if (p.backend().equalsIgnoreCase(backend)) {
          return p.open(options);
        }
        found.add(p.backend());
      }
    }
    throw new CdcConfigException(
        CdcErrorCode.INVALID_OPTION,
        "No client for backend '" + backend + "' is on the classpath (found: "
            + (found.isEmpty() ? "none" : String.join(", ", found))
            + "). backend=fake needs the mssql-cdc-fake jar next to the connector.");
  }

  private static List<ClassLoader> loaders() {
    List<ClassLoader> loaders = new ArrayList<>(2);
    ClassLoader context = Thread.currentThread().getContextClassLoader();
    if (context != null) {
      loaders.add(context);
    }
    ClassLoader own = CdcClients.class.getClassLoader();
    if (own != null && own != context) {
      loaders.add(own);
    }
    return loaders;
  }
}
