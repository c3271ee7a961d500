package io.mssqlcdc.connector.snapshot;

import io.mssqlcdc.client.RowCursor;
import io.mssqlcdc.connector.CapturedValues;
import io.mssqlcdc.connector.CdcColumns;
import io.mssqlcdc.connector.SparkValues;
import java.time.Instant;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Builds the snapshot's rows (reference-behaviour §4, §12.2): the constant metadata columns
 * ({@code _operation = 0}, {@code _seqval} and {@code _command_id} NULL, {@code _start_lsn} and
 * {@code _commit_ts} from the stamp), each captured column cast to its declared type (NULL when
 * the table no longer has it or it is computed: {@link CapturedValues}, shared with the stream),
 * and {@code _chunk} last when chunked.
 */
final class SnapshotRows {
  private final int width;
  private final CapturedValues captured;
  private final Object[] metadata;
  private final Integer chunk;
  private RowCursor cursor;
  private CapturedValues.Source values;

  SnapshotRows(SnapshotRead read, Integer chunk) {
    StructField[] fields = read.schema().fields();
    boolean includeCommandId = read.options().includeCommandId();
    this.width = fields.length;
    this.captured = new CapturedValues(fields, CdcColumns.metadataFields(includeCommandId).size(),
        read.columns().source(), read.options().allowPrecisionLoss());
    Instant ts = read.stamp().commitTs();
    Object commitTs = ts == null ? null : SparkValues.micros(ts);
    UTF8String ci = UTF8String.fromString(read.captureInstance());
    UTF8String lsn = UTF8String.fromString(read.stamp().lsn().toString());
    this.metadata = includeCommandId
        ? new Object[] {ci, lsn, null, 0, null, commitTs}
        : new Object[] {ci, lsn, null, 0, commitTs};
    this.chunk = read.chunked() ? chunk : null;
  }

  /** The row at the cursor's current position (a new row each call: Spark may hold on to it). */
  InternalRow row(RowCursor cursor) {
    Object[] values = new Object[width];
    System.arraycopy(metadata, 0, values, 0, metadata.length);
    captured.fill(values, source(cursor));
    if (chunk != null) {
      values[width - 1] = chunk;
    }
    return new GenericInternalRow(values);
  }

  private CapturedValues.Source source(RowCursor c) {
    if (c != cursor) { // one cursor per partition: adapt it once
      cursor = c;
      values = c::value;
    }
    return values;
  }

  /** Approximate bytes of the captured values built so far. */
  long bytes() {
    return captured.bytes();
  }
}
