package io.mssqlcdc.connector;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.catalyst.expressions.SpecificInternalRow;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * The captured columns of an output row (reference-behaviour §4), shared by the stream's and the
 * snapshot's row building: one {@link ColumnWriter} per captured field, chosen once; each value
 * read from its position in the source row and written into the reader's reused row, NULL where
 * the source has none (a column the table or capture instance no longer has); and the
 * approximate in-memory bytes of what was built. The metadata columns before them are each
 * reader's own business.
 */
public final class CapturedValues {
  /** The current source row: value {@code i} of what was requested. */
  @FunctionalInterface
  public interface Source {
    Object value(int i);
  }

  private final int first;
  private final int[] positions;
  private final ColumnWriter[] writers;
  private final List<String> names;
  private long bytes;

  /**
   * @param fields the output schema's fields
   * @param first index of the first captured field (the metadata columns come before it)
   * @param positions for each captured field, its index in the source row, or -1 for NULL
   */
  public CapturedValues(StructField[] fields, int first, int[] positions) {
    this(fields, first, positions, false);
  }

  /**
   * @param allowPrecisionLoss option {@code allowPrecisionLoss} ({@link SparkValues#converter(String,
   *     org.apache.spark.sql.types.DataType, boolean)})
   */
  public CapturedValues(StructField[] fields, int first, int[] positions, boolean allowPrecisionLoss) {
    this.first = first;
    this.positions = positions.clone();
    this.writers = new ColumnWriter[positions.length];
    List<String> n = new ArrayList<>(positions.length);
    for (int i = 0; i < positions.length; i++) {
      StructField f = fields[first + i];
      writers[i] = ColumnWriter.of(f.name(), f.dataType(), allowPrecisionLoss);
      n.add(f.name());
    }
    this.names = List.copyOf(n);
  }

  /** Every field from {@code first} to the end, read from the same position of the source row. */
  public static CapturedValues inOrder(StructField[] fields, int first) {
    return inOrder(fields, first, false);
  }

  /** {@link #inOrder(StructField[], int)} with option {@code allowPrecisionLoss}. */
  public static CapturedValues inOrder(StructField[] fields, int first, boolean allowPrecisionLoss) {
    int[] positions = new int[fields.length - first];
    Arrays.setAll(positions, i -> i);
    return new CapturedValues(fields, first, positions, allowPrecisionLoss);
  }

  /** The captured fields' names, in schema order. */
  public List<String> names() {
    return names;
  }

  /** Number of captured fields. */
  public int count() {
    return writers.length;
  }

  /**
   * Casts the source row's values into {@code row[first ..]} and adds their size to
   * {@link #bytes()}. Positions the source has no value for are never written: they stay NULL
   * in a row the caller reuses.
   *
   * @return the approximate bytes of the values written
   */
  public long fill(SpecificInternalRow row, Source source) {
    long size = 0;
    int[] p = positions;
    ColumnWriter[] w = writers;
    int f = first;
    for (int i = 0; i < w.length; i++) {
      int at = p[i];
      if (at >= 0) {
        size += w[i].write(source.value(at), row, f + i);
      }
    }
    bytes += size;
    return size;
  }

  /** Approximate bytes of the captured values built so far. */
  public long bytes() {
    return bytes;
  }

  /**
   * Approximate in-memory size of one Spark value: UTF-8 bytes of a string, length of a binary,
   * otherwise the fixed width of its Spark type ({@code DataType.defaultSize}: 1 boolean/byte,
   * 2 short, 4 int/float/date, 8 long/double/timestamp and decimals up to precision 18, 16 wider
   * decimals); 0 for NULL.
   */
  static long sizeOf(Object v) {
    if (v == null) {
      return 0;
    }
    if (v instanceof UTF8String s) {
      return s.numBytes();
    }
    if (v instanceof byte[] b) {
      return b.length;
    }
    if (v instanceof Decimal d) {
      return d.precision() <= Decimal.MAX_LONG_DIGITS() ? 8 : 16;
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
}
