package io.mssqlcdc.connector.stream;

import io.mssqlcdc.client.ChangeCursor;
import io.mssqlcdc.connector.CdcColumns;
import io.mssqlcdc.connector.SparkValues;
import io.mssqlcdc.lsn.Lsn;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Turns the current row of a {@link ChangeCursor} into an {@link InternalRow} of the stream's
 * schema: the metadata columns, then every captured column cast to its declared type
 * ({@link SparkValues}). One per partition; it also estimates the bytes of what it produced.
 */
final class ChangeRowConverter {
  private final int metadata;
  private final boolean includeCommandId;
  private final SparkValues.Converter[] converters;
  private final UTF8String captureInstance;
  private final List<String> columns;
  private Lsn lastLsn;
  private UTF8String lastLsnText;
  private long bytes;

  ChangeRowConverter(StructType schema, String captureInstance) {
    this.includeCommandId = schema.getFieldIndex(CdcColumns.COMMAND_ID).isDefined();
    this.metadata = CdcColumns.metadataFields(includeCommandId).size();
    StructField[] fields = schema.fields();
    this.converters = new SparkValues.Converter[fields.length - metadata];
    this.columns = new ArrayList<>();
    for (int i = metadata; i < fields.length; i++) {
      converters[i - metadata] = SparkValues.converter(fields[i].name(), fields[i].dataType());
      columns.add(fields[i].name());
    }
    this.captureInstance = UTF8String.fromString(captureInstance);
  }

  /** The captured columns to request, in schema order. */
  List<String> columns() {
    return columns;
  }

  boolean includeCommandId() {
    return includeCommandId;
  }

  InternalRow convert(ChangeCursor c) {
    Object[] v = new Object[metadata + converters.length];
    int i = 0;
    v[i++] = captureInstance;
    v[i++] = lsnText(c.startLsn());
    v[i++] = UTF8String.fromString(c.seqval().toString());
    v[i++] = c.operation();
    if (includeCommandId) {
      v[i++] = c.commandId();
    }
    v[i++] = micros(c.commitTime());
    long size = 22L * 2 + 8 * 3 + captureInstance.numBytes();
    for (int k = 0; k < converters.length; k++) {
      Object value = converters[k].convert(c.value(k));
      v[i++] = value;
      size += sizeOf(value);
    }
    bytes += size;
    return new GenericInternalRow(v);
  }

  /** Estimated bytes of the rows converted so far. */
  long bytes() {
    return bytes;
  }

  private UTF8String lsnText(Lsn lsn) {
    // all rows of a transaction share the LSN: render it once
    if (!lsn.equals(lastLsn)) {
      lastLsn = lsn;
      lastLsnText = UTF8String.fromString(lsn.toString());
    }
    return lastLsnText;
  }

  private static Object micros(Instant t) {
    if (t == null) {
      return null;
    }
    return Math.addExact(Math.multiplyExact(t.getEpochSecond(), 1_000_000L), t.getNano() / 1000);
  }

  private static long sizeOf(Object v) {
    if (v == null) {
      return 0;
    }
    if (v instanceof UTF8String s) {
      return s.numBytes();
    }
    if (v instanceof byte[] b) {
      return b.length;
    }
    if (v instanceof org.apache.spark.sql.types.Decimal) {
      return 16;
    }
    return 8;
  }
}
