package io.mssqlcdc.connector.snapshot;

import io.mssqlcdc.client.RowCursor;
import io.mssqlcdc.connector.CapturedValues;
import io.mssqlcdc.connector.CdcColumns;
import io.mssqlcdc.connector.SparkValues;
import java.time.Instant;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.SpecificInternalRow;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Builds the snapshot's rows (reference-behaviour §4, §12.2): the constant metadata columns
 * ({@code _operation = 0}, {@code _seqval} and {@code _command_id} NULL, {@code _start_lsn} and
 * {@code _commit_ts} from the stamp), each captured column cast to its declared type (NULL when
 * the table no longer has it or it is computed: {@link CapturedValues}, shared with the stream),
 * and {@code _chunk} last when chunked. The constants are written once into one reused row that
 * each call re-fills (Spark copies a row-based scan's rows, as {@code ChangeRowConverter} says).
 */
final class SnapshotRows {
  private final CapturedValues captured;
  private final SpecificInternalRow row;
  private RowCursor cursor;
  private CapturedValues.Source values;

  SnapshotRows(SnapshotRead read, Integer chunk) {
    StructField[] fields = read.schema().fields();
    boolean includeCommandId = read.options().includeCommandId();
    this.captured = new CapturedValues(fields, CdcColumns.metadataFields(includeCommandId).size(),
        read.columns().source(), read.options().allowPrecisionLoss());
    this.row = new SpecificInternalRow(read.schema());
    row.update(0, UTF8String.fromString(read.captureInstance()));
    row.update(1, UTF8String.fromString(read.stamp().lsn().toString()));
    row.setInt(3, 0);
    Instant ts = read.stamp().commitTs();
    if (ts != null) {
      row.setLong(includeCommandId ? 5 : 4, SparkValues.micros(ts));
    }
    if (read.chunked() && chunk != null) {
      row.setInt(fields.length - 1, chunk);
    }
  }

  /** The row at the cursor's current position, in the reused row (valid until the next call). */
  InternalRow row(RowCursor cursor) {
    captured.fill(row, source(cursor));
    return row;
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
