package io.mssqlcdc.connector.snapshot;

import io.mssqlcdc.client.RowCursor;
import io.mssqlcdc.connector.CdcColumns;
import io.mssqlcdc.connector.SparkValues;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Builds the snapshot's rows (reference-behaviour §4, §12.2): the constant metadata columns
 * ({@code _operation = 0}, {@code _seqval} and {@code _command_id} NULL, {@code _start_lsn} and
 * {@code _commit_ts} from the stamp), each captured column cast to its declared type (NULL when
 * the table no longer has it or it is computed), and {@code _chunk} last when chunked.
 */
final class SnapshotRows {
  private final int width;
  private final int firstCaptured;
  private final int[] source;
  private final SparkValues.Converter[] converters;
  private final Object[] metadata;
  private final Integer chunk;
  private long bytes;

  SnapshotRows(SnapshotRead read, Integer chunk) {
    StructField[] fields = read.schema().fields();
    boolean includeCommandId = read.options().includeCommandId();
    this.width = fields.length;
    this.firstCaptured = CdcColumns.metadataFields(includeCommandId).size();
    this.source = read.columns().source();
    this.converters = new SparkValues.Converter[source.length];
    for (int i = 0; i < source.length; i++) {
      StructField f = fields[firstCaptured + i];
      converters[i] = SparkValues.converter(f.name(), f.dataType());
    }
    Instant ts = read.stamp().commitTs();
    Object commitTs = ts == null ? null : micros(ts);
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
    for (int i = 0; i < source.length; i++) {
      if (source[i] >= 0) {
        Object v = converters[i].convert(cursor.value(source[i]));
        values[firstCaptured + i] = v;
        bytes += size(v);
      }
    }
    if (chunk != null) {
      values[width - 1] = chunk;
    }
    return new GenericInternalRow(values);
  }

  /** Approximate bytes of the captured values built so far. */
  long bytes() {
    return bytes;
  }

  private static long size(Object v) {
    if (v == null) {
      return 0;
    }
    if (v instanceof UTF8String s) {
      return s.numBytes();
    }
    if (v instanceof byte[] b) {
      return b.length;
    }
    if (v instanceof Integer || v instanceof Float) {
      return 4;
    }
    if (v instanceof Short) {
      return 2;
    }
    if (v instanceof Boolean || v instanceof Byte) {
      return 1;
    }
    return 8;
  }

  private static long micros(Instant i) {
    Instant t = i.truncatedTo(ChronoUnit.MICROS);
    return Math.addExact(Math.multiplyExact(t.getEpochSecond(), 1_000_000L), t.getNano() / 1000);
  }
}
