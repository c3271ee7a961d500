package io.mssqlcdc.connector.snapshot;

import io.mssqlcdc.connector.FactsRounding;
import io.mssqlcdc.lsn.Lsn;
import java.io.Serializable;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * What one partition of a snapshot read measured (reference-behaviour §8.2): with
 * {@code snapshotChunks}, one chunk. The figures of a {@code snapshot_chunk} facts row:
 * {@code rows}, {@code read_seconds} ({@link #readSeconds()}), {@code read_mb}
 * ({@link #readMb()}), {@code max_lsn} ({@link #highLsn()}).
 *
 * @param partition the partition's index in the read
 * @param chunkNumber the {@code snapshotChunks} chunk number; {@code null} for whole-table reads
 * @param rows rows read
 * @param bytes estimated bytes of the values after conversion
 * @param nanos wall time from opening the client to the last row, Spark's consumption included
 * @param highLsnOrNull {@code fn_cdc_get_max_lsn} read right after the chunk's last row
 *     (chunked reads only; {@code null} otherwise or when the source could not tell)
 */
public record ChunkFigures(int partition, Integer chunkNumber, long rows, long bytes, long nanos, Lsn highLsnOrNull)
    implements Serializable {
  private static final long serialVersionUID = 1L;

  /** The chunk number, empty for a whole-table read. */
  public OptionalInt chunk() {
    return chunkNumber == null ? OptionalInt.empty() : OptionalInt.of(chunkNumber);
  }

  /** Facts {@code read_seconds} of the chunk: wall seconds, 3 decimals. */
  public double readSeconds() {
    return FactsRounding.round(nanos / 1e9, FactsRounding.SECONDS);
  }

  /** Facts {@code read_mb} of the chunk: bytes / 10⁶, 6 decimals. */
  public double readMb() {
    return FactsRounding.round(bytes / 1e6, FactsRounding.MB);
  }

  /** Facts {@code max_lsn} of a {@code snapshot_chunk} row: the {@code max_lsn} read after the chunk. */
  public Optional<Lsn> highLsn() {
    return Optional.ofNullable(highLsnOrNull);
  }
}
