package io.mssqlcdc.fake;

import io.mssqlcdc.client.CdcClient;
import io.mssqlcdc.client.CdcClientProvider;
import io.mssqlcdc.errors.CdcErrors;
import io.mssqlcdc.options.CdcReaderOptions;
import java.nio.file.Path;

/**
 * {@code backend=fake}: a {@link FakeCdcClient} on the {@code fakePath} directory, converting
 * commit times with the {@code sourceTimeZone} option when it is not {@code auto} (IANA ids and
 * {@code UTC±HH:MM} only: the fake does not map Windows zone names).
 */
public final class FakeCdcClientProvider implements CdcClientProvider {
  @Override
  public String backend() {
    return "fake";
  }

  @Override
  public CdcClient open(CdcReaderOptions options) {
    String path = options.fakePath().orElseThrow(() -> CdcErrors.missingOption(
        CdcReaderOptions.FAKE_PATH.name(), "the directory of a FakeCdcDatabase, with backend=fake"));
    return FakeCdcClient.open(Path.of(path), options.sourceTimeZone());
  }
}
