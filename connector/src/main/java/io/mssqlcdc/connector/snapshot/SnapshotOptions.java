package io.mssqlcdc.connector.snapshot;

import io.mssqlcdc.options.CdcReaderOptions;
import io.mssqlcdc.options.CdcReaderOptions.Reader;
import java.io.Serializable;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The snapshot reader's options: {@link CdcReaderOptions} parsed for {@link Reader#SNAPSHOT},
 * plus {@code snapshotChunks} and {@code snapshotKeys} parsed from their JSON. Built when the
 * DataFrame is created, so every bad option fails there.
 */
final class SnapshotOptions implements Serializable {
  private static final long serialVersionUID = 1L;

  private final CdcReaderOptions reader;
  private final SnapshotChunks chunks;
  private final List<String> keys;

  private SnapshotOptions(CdcReaderOptions reader, SnapshotChunks chunks, List<String> keys) {
    this.reader = reader;
    this.chunks = chunks;
    this.keys = keys;
  }

  static SnapshotOptions parse(Map<String, String> raw) {
    CdcReaderOptions reader = CdcReaderOptions.parse(raw, Reader.SNAPSHOT);
    SnapshotChunks chunks = reader.snapshotChunks().map(SnapshotChunks::parse).orElse(null);
    List<String> keys = reader.snapshotKeys().map(SnapshotKeys::parse).orElse(null);
    return new SnapshotOptions(reader, chunks, keys);
  }

  CdcReaderOptions reader() {
    return reader;
  }

  Optional<SnapshotChunks> chunks() {
    return Optional.ofNullable(chunks);
  }

  Optional<List<String>> keys() {
    return Optional.ofNullable(keys);
  }

  @Override
  public String toString() {
    return reader.toString();
  }
}
