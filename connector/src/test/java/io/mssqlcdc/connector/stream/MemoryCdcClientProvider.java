package io.mssqlcdc.connector.stream;

import io.mssqlcdc.client.CdcClient;
import io.mssqlcdc.client.CdcClientProvider;
import io.mssqlcdc.options.CdcReaderOptions;
import java.util.ServiceLoader;

/**
 * {@code backend=fake} for {@code fakePath=mem:<id>} ({@link MemoryCdc}); any other path goes to
 * the next {@code fake} provider on the classpath (the file-backed fake).
 */
public final class MemoryCdcClientProvider implements CdcClientProvider {
  @Override
  public String backend() {
    return "fake";
  }

  @Override
  public CdcClient open(CdcReaderOptions options) {
    String path = options.fakePath().orElse("");
    if (path.startsWith("mem:")) {
      return new MemoryCdcClient(MemoryCdc.get(path), options.sourceTimeZone());
    }
    for (CdcClientProvider p : ServiceLoader.load(CdcClientProvider.class)) {
      if (!(p instanceof MemoryCdcClientProvider) && p.backend().equalsIgnoreCase("fake")) {
        return p.open(options);
      }
    }
    throw new IllegalStateException("no file-backed fake on the classpath for fakePath=" + path);
  }
}
