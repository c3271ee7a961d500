package io.mssqlcdc.connector;

import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.execution.vectorized.ConstantColumnVector;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;

/** Column vectors of one value on every row, taken from a row the row path would emit: no per-row work. */
public final class ConstantVectors {
  private ConstantVectors() {}

  /** A vector of {@code capacity} rows, each {@code row}'s value at {@code ordinal} (of {@code type}; NULL included). */
  public static ConstantColumnVector of(InternalRow row, int ordinal, DataType type, int capacity) {
    ConstantColumnVector v = new ConstantColumnVector(capacity, type);
    if (row.isNullAt(ordinal)) {
      v.setNull();
      return v;
    }
    if (type instanceof StringType) {
      v.setUtf8String(row.getUTF8String(ordinal));
    } else if (type instanceof IntegerType || type instanceof DateType) {
      v.setInt(row.getInt(ordinal));
    } else if (type instanceof LongType || type instanceof TimestampType || type instanceof TimestampNTZType) {
      v.setLong(row.getLong(ordinal));
    } else if (type instanceof ShortType) {
      v.setShort(row.getShort(ordinal));
    } else if (type instanceof ByteType) {
      v.setByte(row.getByte(ordinal));
    } else if (type instanceof BooleanType) {
      v.setBoolean(row.getBoolean(ordinal));
    } else if (type instanceof DoubleType) {
      v.setDouble(row.getDouble(ordinal));
    } else if (type instanceof FloatType) {
      v.setFloat(row.getFloat(ordinal));
    } else if (type instanceof DecimalType d) {
      v.setDecimal(row.getDecimal(ordinal, d.precision(), d.scale()), d.precision());
    } else if (type instanceof BinaryType) {
      v.setBinary(row.getBinary(ordinal));
    } else {
      throw new IllegalArgumentException("No constant column vector of " + type.simpleString());
    }
    return v;
  }

  /** A vector of {@code capacity} NULLs of {@code type}. */
  public static ConstantColumnVector nulls(DataType type, int capacity) {
    ConstantColumnVector v = new ConstantColumnVector(capacity, type);
    v.setNull();
    return v;
  }
}
