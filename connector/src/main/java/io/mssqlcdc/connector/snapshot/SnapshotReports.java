package io.mssqlcdc.connector.snapshot;

import io.mssqlcdc.lsn.Lsn;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.Optional;

/**
 * The driver-side registry of snapshot reads' figures (reference-behaviour §8.2, without side
 * files): a read registers its {@link SnapshotReport} when it is planned, and its partitions'
 * figures arrive through a Spark accumulator as the tasks finish.
 *
 * <pre>{@code
 * Dataset<Row> chunk = spark.read().format("mssql_cdc_snapshot")
 *     .option("captureInstance", "dbo_orders").option("snapshotChunks", "[[7, 1000, 2000]]")
 *     .option("readId", "orders-wave-3").load();
 * chunk.write().format("delta").mode("append").save(path);           // the read runs here
 * ChunkFigures c7 = SnapshotReports.forRead("orders-wave-3").orElseThrow().chunk(7).orElseThrow();
 * c7.rows(); c7.readSeconds(); c7.readMb(); c7.highLsn();
 * }</pre>
 *
 * <p>Keyed by the {@code readId} option (give each read its own; a second read under the same
 * id replaces the first), or found by stamp ({@link #forStamp}: the latest read of that stamp).
 * The last {@link #KEEP} reads are kept. A DataFrame planned again (each new Dataset over the
 * same options plans again) registers again.
 */
public final class SnapshotReports {
  static final int KEEP = 256;

  private static final Deque<SnapshotReport> REPORTS = new ArrayDeque<>();

  private SnapshotReports() {}

  /** The read registered under {@code readId}. */
  public static synchronized Optional<SnapshotReport> forRead(String readId) {
    for (Iterator<SnapshotReport> it = REPORTS.descendingIterator(); it.hasNext(); ) {
      SnapshotReport r = it.next();
      if (r.readId().filter(readId::equals).isPresent()) {
        return Optional.of(r);
      }
    }
    return Optional.empty();
  }

  /** The latest read stamped {@code stamp} (any {@code readId}). */
  public static synchronized Optional<SnapshotReport> forStamp(Lsn stamp) {
    for (Iterator<SnapshotReport> it = REPORTS.descendingIterator(); it.hasNext(); ) {
      SnapshotReport r = it.next();
      if (r.stamp().equals(stamp)) {
        return Optional.of(r);
      }
    }
    return Optional.empty();
  }

  static synchronized void register(SnapshotReport report) {
    if (report.readId().isPresent()) {
      REPORTS.removeIf(r -> r.readId().equals(report.readId()));
    }
    REPORTS.addLast(report);
    while (REPORTS.size() > KEEP) {
      REPORTS.removeFirst();
    }
  }
}
