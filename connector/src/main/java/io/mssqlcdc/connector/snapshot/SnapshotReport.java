package io.mssqlcdc.connector.snapshot;

import io.mssqlcdc.connector.FactsRounding;
import io.mssqlcdc.lsn.Lsn;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.util.CollectionAccumulator;

/**
 * What one snapshot read knows on the driver ({@link SnapshotReports}): its stamp, its plan and
 * what each partition measured, carried from the executors by a Spark accumulator (complete once
 * the action that read the DataFrame returned). A partition read twice (a retried task, a second
 * action on the same DataFrame) counts once: its last report wins.
 */
public final class SnapshotReport {
  private final String readId;
  private final String captureInstance;
  private final Lsn stamp;
  private final Instant stampCommitTs;
  private final int partitions;
  private final CollectionAccumulator<ChunkFigures> acc;

  SnapshotReport(String readId, String captureInstance, SnapshotStamp stamp, int partitions,
      CollectionAccumulator<ChunkFigures> acc) {
    this.readId = readId;
    this.captureInstance = captureInstance;
    this.stamp = stamp.lsn();
    this.stampCommitTs = stamp.commitTs();
    this.partitions = partitions;
    this.acc = acc;
  }

  /** The {@code readId} option, empty when not given. */
  public Optional<String> readId() {
    return Optional.ofNullable(readId);
  }

  /** The {@code captureInstance} option. */
  public String captureInstance() {
    return captureInstance;
  }

  /** The LSN every row is stamped with ({@code _start_lsn}). */
  public Lsn stamp() {
    return stamp;
  }

  /** UTC commit time of {@link #stamp()}; empty when it is no commit's. */
  public Optional<Instant> stampCommitTs() {
    return Optional.ofNullable(stampCommitTs);
  }

  /** Partitions planned (one per chunk with {@code snapshotChunks}). */
  public int partitionsPlanned() {
    return partitions;
  }

  /** The figures of each partition whose read finished, by partition index. */
  public List<ChunkFigures> chunks() {
    Map<Integer, ChunkFigures> byPartition = new LinkedHashMap<>();
    for (ChunkFigures c : acc == null ? List.<ChunkFigures>of() : acc.value()) {
      byPartition.put(c.partition(), c);
    }
    List<ChunkFigures> out = new ArrayList<>(byPartition.values());
    out.sort(Comparator.comparingInt(ChunkFigures::partition));
    return List.copyOf(out);
  }

  /** The figures of chunk {@code chunk} ({@code snapshotChunks} number), when its read finished. */
  public Optional<ChunkFigures> chunk(int chunk) {
    return chunks().stream().filter(c -> c.chunkNumber() != null && c.chunkNumber() == chunk).findFirst();
  }

  /** Rows of the partitions whose read finished. */
  public long rowsRead() {
    return chunks().stream().mapToLong(ChunkFigures::rows).sum();
  }

  /** Estimated bytes after conversion of the partitions whose read finished. */
  public long bytesRead() {
    return chunks().stream().mapToLong(ChunkFigures::bytes).sum();
  }

  /** The partitions' wall seconds summed (task-seconds), 3 decimals. */
  public double readSeconds() {
    return FactsRounding.round(chunks().stream().mapToLong(ChunkFigures::nanos).sum() / 1e9, FactsRounding.SECONDS);
  }

  /** {@link #bytesRead()} / 10⁶, 6 decimals. */
  public double readMb() {
    return FactsRounding.round(bytesRead() / 1e6, FactsRounding.MB);
  }

  /** Whether every planned partition reported. */
  public boolean complete() {
    return chunks().size() == partitions;
  }

  @Override
  public String toString() {
    return "SnapshotReport{readId=" + readId + ", instance=" + captureInstance + ", stamp=" + stamp + ", partitions="
        + partitions + ", read=" + chunks().size() + ", rows=" + rowsRead() + "}";
  }
}
