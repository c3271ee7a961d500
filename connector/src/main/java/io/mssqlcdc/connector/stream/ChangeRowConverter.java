package io.mssqlcdc.connector.stream;

import io.mssqlcdc.client.ChangeCursor;
import io.mssqlcdc.connector.CapturedValues;
import io.mssqlcdc.connector.CdcColumns;
import io.mssqlcdc.connector.SparkValues;
import io.mssqlcdc.lsn.Lsn;
import java.time.Instant;
import java.util.List;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Turns the current row of a {@link ChangeCursor} into an {@link InternalRow} of the stream's
 * schema: the metadata columns, then every captured column cast to its declared type
 * ({@link CapturedValues}, shared with the snapshot). One per partition; it also estimates the
 * bytes of what it produced (the metadata columns' fixed share plus the captured values).
 */
final class ChangeRowConverter {
  private final int metadata;
  private final boolean includeCommandId;
  private final CapturedValues captured;
  private final UTF8String captureInstance;
  private final long metadataBytes;
  private Lsn lastLsn;
  private UTF8String lastLsnText;
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
    this.captureInstance = UTF8String.fromString(captureInstance);
    this.metadataBytes = 22L * 2 + 8 * 3 + this.captureInstance.numBytes();
  }

  /** The captured columns to request, in schema order. */
  List<String> columns() {
    return captured.names();
  }

  boolean includeCommandId() {
    return includeCommandId;
  }

  InternalRow convert(ChangeCursor c) {
    Object[] v = new Object[metadata + captured.count()];
    int i = 0;
    v[i++] = captureInstance;
    v[i++] = lsnText(c.startLsn());
    v[i++] = UTF8String.fromString(c.seqval().toString());
    v[i++] = c.operation();
    if (includeCommandId) {
      v[i++] = c.commandId();
    }
    Instant commitTime = c.commitTime();
    v[i] = commitTime == null ? null : SparkValues.micros(commitTime);
    bytes += metadataBytes + captured.fill(v, source(c));
    return new GenericInternalRow(v);
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

  private UTF8String lsnText(Lsn lsn) {
    // all rows of a transaction share the LSN: render it once
    if (!lsn.equals(lastLsn)) {
      lastLsn = lsn;
      lastLsnText = UTF8String.fromString(lsn.toString());
    }
    return lastLsnText;
  }
}
