package io.mssqlcdc.connector.stream;

import io.mssqlcdc.connector.CdcOffset;
import java.util.ArrayList;
import java.util.List;

/**
 * What the stream knows about one micro-batch, for the sink on the driver
 * ({@link BatchEvents#forBatch}): its offsets, the events of planning and reading, and the read
 * metrics. The metrics count the tasks that have finished: inside {@code foreachBatch} they are
 * complete once the sink's write of the batch DataFrame returned (the read runs inside it).
 */
public final class BatchReport {
  private final String queryId;
  private final long batchId;
  private final CdcOffset start;
  private final CdcOffset end;
  private final int partitions;
  private final List<BatchEvent> plannerEvents;
  private final BatchAccumulators acc;

  BatchReport(String queryId, long batchId, CdcOffset start, CdcOffset end, int partitions,
      List<BatchEvent> plannerEvents, BatchAccumulators acc) {
    this.queryId = queryId;
    this.batchId = batchId;
    this.start = start;
    this.end = end;
    this.partitions = partitions;
    this.plannerEvents = List.copyOf(plannerEvents);
    this.acc = acc;
  }

  public String queryId() {
    return queryId;
  }

  /** The micro-batch id, as {@code foreachBatch} receives it; -1 when Spark did not say. */
  public long batchId() {
    return batchId;
  }

  /** The batch's start offset (exclusive: the last commit of the batch before). */
  public CdcOffset startOffset() {
    return start;
  }

  /** The batch's end offset (inclusive: its last commit or idle entry). */
  public CdcOffset endOffset() {
    return end;
  }

  /** Input partitions planned (LSN ranges). */
  public int partitionsPlanned() {
    return partitions;
  }

  /** Events of planning (schema changes, instance switches, skips), then those of the read. */
  public List<BatchEvent> events() {
    List<BatchEvent> all = new ArrayList<>(plannerEvents);
    if (acc != null) {
      all.addAll(acc.taskEvents());
    }
    return all;
  }

  /** Change rows read by finished tasks. */
  public long rowsRead() {
    return acc == null ? 0 : acc.rows.sum();
  }

  /** Estimated bytes of the values read (Spark's in-memory sizes), finished tasks. */
  public long bytesRead() {
    return acc == null ? 0 : acc.bytes.sum();
  }

  /** Wall time the finished tasks spent reading from the source, ms. */
  public long readMillis() {
    return acc == null ? 0 : acc.readNanos.sum() / 1_000_000;
  }

  /** Tasks that finished reading their range. */
  public long partitionsRead() {
    return acc == null ? 0 : acc.partitionsRead.sum();
  }

  @Override
  public String toString() {
    return "BatchReport{query=" + queryId + ", batch=" + batchId + ", start=" + start.lsn() + ", end=" + end.lsn()
        + ", partitions=" + partitions + ", rows=" + rowsRead() + ", bytes=" + bytesRead() + ", readMs="
        + readMillis() + ", events=" + events() + "}";
  }
}
