package io.mssqlcdc.connector;

import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.execution.vectorized.WritableColumnVector;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * The current row of a set of column vectors, as the write side of an {@code InternalRow}: the
 * columnar readers fill a batch through the same {@link ColumnWriter}s as the row readers, each
 * setter writing into the vector of its ordinal at {@link #at the current position}. Only the
 * setters are meant to be used (its getters are those of an empty {@link GenericInternalRow}); the
 * value objects {@link #update} receives are Spark's internal ones for the vector's type
 * ({@link #supports}), as {@link SparkValues} produces them.
 */
public final class VectorRow extends GenericInternalRow {
  private final WritableColumnVector[] vectors;
  private final int[] precisions;
  private int rowId;

  /** @param vectors the vector of each ordinal; null where nothing is written (a constant column) */
  public VectorRow(WritableColumnVector[] vectors) {
    super(0);
    this.vectors = vectors.clone();
    this.precisions = new int[vectors.length];
    for (int i = 0; i < vectors.length; i++) {
      if (vectors[i] != null && vectors[i].dataType() instanceof DecimalType d) {
        precisions[i] = d.precision();
      }
    }
  }

  /** Whether values of {@code type} can be written into a vector by this class. */
  public static boolean supports(DataType type) {
    return type instanceof StringType || type instanceof IntegerType || type instanceof LongType
        || type instanceof ShortType || type instanceof ByteType || type instanceof BooleanType
        || type instanceof DoubleType || type instanceof FloatType || type instanceof DecimalType
        || type instanceof TimestampType || type instanceof TimestampNTZType || type instanceof DateType
        || type instanceof BinaryType;
  }

  /** Moves to row {@code rowId} of the vectors: the setters write there. */
  public void at(int rowId) {
    this.rowId = rowId;
  }

  @Override
  public void setNullAt(int i) {
    vectors[i].putNull(rowId);
  }

  @Override
  public void update(int i, Object value) {
    WritableColumnVector v = vectors[i];
    if (value == null) {
      v.putNull(rowId);
    } else if (value instanceof UTF8String s) {
      v.putByteArray(rowId, s.getBytes());
    } else if (value instanceof Decimal d) {
      v.putDecimal(rowId, d, precisions[i]);
    } else if (value instanceof byte[] b) {
      v.putByteArray(rowId, b);
    } else if (value instanceof Integer x) {
      v.putInt(rowId, x);
    } else if (value instanceof Long x) {
      v.putLong(rowId, x);
    } else if (value instanceof Boolean x) {
      v.putBoolean(rowId, x);
    } else if (value instanceof Double x) {
      v.putDouble(rowId, x);
    } else if (value instanceof Float x) {
      v.putFloat(rowId, x);
    } else if (value instanceof Short x) {
      v.putShort(rowId, x);
    } else if (value instanceof Byte x) {
      v.putByte(rowId, x);
    } else {
      throw new IllegalArgumentException("No column vector value for " + value.getClass().getName() + " at " + i);
    }
  }

  @Override
  public void setBoolean(int i, boolean value) {
    vectors[i].putBoolean(rowId, value);
  }

  @Override
  public void setByte(int i, byte value) {
    vectors[i].putByte(rowId, value);
  }

  @Override
  public void setShort(int i, short value) {
    vectors[i].putShort(rowId, value);
  }

  @Override
  public void setInt(int i, int value) {
    vectors[i].putInt(rowId, value);
  }

  @Override
  public void setLong(int i, long value) {
    vectors[i].putLong(rowId, value);
  }

  @Override
  public void setFloat(int i, float value) {
    vectors[i].putFloat(rowId, value);
  }

  @Override
  public void setDouble(int i, double value) {
    vectors[i].putDouble(rowId, value);
  }

  @Override
  public void setDecimal(int i, Decimal value, int precision) {
    vectors[i].putDecimal(rowId, value, precision);
  }
}
