package io.mssqlcdc.connector.stream;

import io.mssqlcdc.client.ChangeCursor;
import io.mssqlcdc.connector.CapturedValues;
import io.mssqlcdc.connector.CdcColumns;
import io.mssqlcdc.connector.SparkValues;
import io.mssqlcdc.lsn.Lsn;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.SpecificInternalRow;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Turns the current row of a {@link ChangeCursor} into an {@link InternalRow} of the stream's
 * schema: the metadata columns, then every captured column cast to its declared type
 * ({@link CapturedValues}, shared with the snapshot). One per partition; it also estimates the
 * bytes of what it produced (the metadata columns' fixed share plus the captured values).
 *
 * <p>Every call re-fills and returns the same mutable row (primitive slots, no boxing): Spark
 * puts an {@code UnsafeProjection} right above a row-based scan ({@code ProjectExec} in
 * {@code DataSourceV2Strategy}, for batch and micro-batch scans alike), which copies each row
 * before the reader moves on, as it does for Spark's own readers that reuse their row. A caller
 * that keeps rows must {@code copy()} them.
 */
final class ChangeRowConverter {
  private final int metadata;
  private final boolean includeCommandId;
  private final CapturedValues captured;
  private final long metadataBytes;
  private final SpecificInternalRow row;
  private final int commitTsOrdinal;
  private Lsn lastLsn;
  private Instant lastCommitTime;
  private long bytes;
  private ChangeCursor cursor;
  private CapturedValues.Source values;

  ChangeRowConverter(StructType schema, String captureInstance) {
    this(schema, captureInstance, false);
  }

  ChangeRowConverter(StructType schema, String captureInstance, boolean allowPrecisionLoss) {
    this.includeCommandId = schema.getFieldIndex(CdcColumns.COMMAND_ID).isDefined();
    this.metadata = CdcColumns.metadataFields(includeCommandId).size();
    this.captured = CapturedValues.inOrder(schema.fields(), metadata, allowPrecisionLoss);
    UTF8String ci = UTF8String.fromString(captureInstance);
    this.metadataBytes = 22L * 2 + 8 * 3 + ci.numBytes();
    this.row = new SpecificInternalRow(schema);
    this.row.update(0, ci); // the same on every row
    this.commitTsOrdinal = metadata - 1;
  }

  /** The captured columns to request, in schema order. */
  List<String> columns() {
    return captured.names();
  }

  boolean includeCommandId() {
    return includeCommandId;
  }

  /** The cursor's current row, in the converter's reused row (valid until the next call). */
  InternalRow convert(ChangeCursor c) {
    SpecificInternalRow r = row;
    Lsn lsn = c.startLsn();
    if (!lsn.equals(lastLsn)) { // all rows of a transaction share the LSN: render it once
      lastLsn = lsn;
      r.update(1, lsnText(lsn));
    }
    r.update(2, lsnText(c.seqval()));
    r.setInt(3, c.operation());
    if (includeCommandId) {
      r.setInt(4, c.commandId());
    }
    Instant commitTime = c.commitTime();
    if (!Objects.equals(commitTime, lastCommitTime)) { // one per transaction too (the row starts NULL)
      lastCommitTime = commitTime;
      if (commitTime == null) {
        r.setNullAt(commitTsOrdinal);
      } else {
        r.setLong(commitTsOrdinal, SparkValues.micros(commitTime));
      }
    }
    bytes += metadataBytes + captured.fill(r, source(c));
    return r;
  }

  /** Estimated bytes of the rows converted so far. */
  long bytes() {
    return bytes;
  }

  private CapturedValues.Source source(ChangeCursor c) {
    if (c != cursor) { // one cursor per partition: adapt it once
      cursor = c;
      values = c::value;
    }
    return values;
  }

  /** {@link Lsn#toString()} as UTF-8, from its bytes (no String in between). */
  static UTF8String lsnText(Lsn lsn) {
    return UTF8String.fromBytes(lsn.canonicalBytes());
  }
}
