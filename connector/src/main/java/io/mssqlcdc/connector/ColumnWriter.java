package io.mssqlcdc.connector;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import org.apache.spark.sql.catalyst.expressions.SpecificInternalRow;
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
 * Writes one column's source values into a reused {@link SpecificInternalRow} (primitive slots:
 * no boxing), the hot path of the partition readers. Chosen once per column and partition by
 * {@link #of}: each writer takes the Java class a client returns for its type without any type
 * dispatch (an {@code Integer} into INT, a {@code BigDecimal} of the declared scale into a
 * DECIMAL of precision up to 18 as its unscaled long, a {@code LocalDateTime} into a timestamp as
 * microseconds without an {@code Instant}); any other value goes through
 * {@link SparkValues#converter}, so the values, the errors and the precision rules are exactly
 * those of {@link SparkValues} ({@code ColumnWriterTest} checks it over every type).
 */
@FunctionalInterface
public interface ColumnWriter {
  /**
   * Writes {@code v} (null: NULL) cast to the column's type at {@code ordinal} of {@code row}.
   *
   * @return the approximate bytes of the value written ({@link CapturedValues#sizeOf})
   */
  long write(Object v, SpecificInternalRow row, int ordinal);

  /** The writer of values of {@code column} to {@code type} ({@link SparkValues#converter(String, DataType, boolean)}). */
  static ColumnWriter of(String column, DataType type, boolean allowPrecisionLoss) {
    ColumnWriter slow = converted(SparkValues.converter(column, type, allowPrecisionLoss));
    if (type instanceof StringType) {
      return (v, row, i) -> {
        if (v instanceof String s) {
          UTF8String u = UTF8String.fromString(s);
          row.update(i, u);
          return u.numBytes();
        }
        return slow.write(v, row, i);
      };
    }
    if (type instanceof IntegerType) {
      return (v, row, i) -> {
        if (v instanceof Integer x) {
          row.setInt(i, x);
          return 4;
        }
        return slow.write(v, row, i);
      };
    }
    if (type instanceof LongType) {
      return (v, row, i) -> {
        if (v instanceof Long x) {
          row.setLong(i, x);
          return 8;
        }
        if (v instanceof Integer x) {
          row.setLong(i, x);
          return 8;
        }
        return slow.write(v, row, i);
      };
    }
    if (type instanceof ShortType) {
      return (v, row, i) -> {
        if (v instanceof Short x) {
          row.setShort(i, x);
          return 2;
        }
        return slow.write(v, row, i);
      };
    }
    if (type instanceof ByteType) {
      return (v, row, i) -> {
        if (v instanceof Byte x) {
          row.setByte(i, x);
          return 1;
        }
        return slow.write(v, row, i);
      };
    }
    if (type instanceof BooleanType) {
      return (v, row, i) -> {
        if (v instanceof Boolean x) {
          row.setBoolean(i, x);
          return 1;
        }
        return slow.write(v, row, i);
      };
    }
    if (type instanceof DoubleType) {
      return (v, row, i) -> {
        if (v instanceof Double x) {
          row.setDouble(i, x);
          return 8;
        }
        return slow.write(v, row, i);
      };
    }
    if (type instanceof FloatType) {
      return (v, row, i) -> {
        if (v instanceof Float x) {
          row.setFloat(i, x);
          return 4;
        }
        return slow.write(v, row, i);
      };
    }
    if (type instanceof DecimalType d && d.precision() <= Decimal.MAX_LONG_DIGITS()) {
      return new CompactDecimalWriter(d.precision(), d.scale(), slow);
    }
    if (type instanceof TimestampType || type instanceof TimestampNTZType) {
      return new TimestampWriter(slow);
    }
    if (type instanceof DateType) {
      return (v, row, i) -> {
        if (v instanceof LocalDate d) {
          row.setInt(i, Math.toIntExact(d.toEpochDay()));
          return 4;
        }
        return slow.write(v, row, i);
      };
    }
    if (type instanceof BinaryType) {
      return (v, row, i) -> {
        if (v instanceof byte[] b) {
          row.update(i, b);
          return b.length;
        }
        return slow.write(v, row, i);
      };
    }
    return slow; // wider decimals: SparkValues' BigDecimal path
  }

  /** Spark's timestamp of an instant given as epoch seconds and nanos (0..999,999,999): micros, truncated. */
  private static long micros(long epochSecond, int nanos) {
    return Math.addExact(Math.multiplyExact(epochSecond, 1_000_000L), nanos / 1000);
  }

  /** Writes what {@code c} converts {@code v} to, NULL included, as a boxed value. */
  private static ColumnWriter converted(SparkValues.Converter c) {
    return (v, row, i) -> {
      Object x = c.convert(v);
      if (x == null) {
        row.setNullAt(i);
      } else {
        row.update(i, x);
      }
      return CapturedValues.sizeOf(x);
    };
  }

  /**
   * TIMESTAMP and TIMESTAMP_NTZ from {@code LocalDateTime} (datetime2, datetime, smalldatetime),
   * {@code OffsetDateTime} (datetimeoffset) or {@code Instant} as micros, truncated. A column's
   * values mostly share their date with the value before (rows of a day, a batch of a few
   * minutes), so the epoch seconds of the last {@code LocalDateTime}'s date are kept: the date's
   * arithmetic ({@code LocalDate.toEpochDay}) runs once per date, not per value. One writer per
   * column and partition (one thread), as {@link #of} makes them.
   */
  final class TimestampWriter implements ColumnWriter {
    private final ColumnWriter slow;
    private LocalDate lastDate;
    private long lastDateSeconds;

    TimestampWriter(ColumnWriter slow) {
      this.slow = slow;
    }

    @Override
    public long write(Object v, SpecificInternalRow row, int i) {
      if (v instanceof LocalDateTime t) {
        LocalDate d = t.toLocalDate();
        if (!d.equals(lastDate)) {
          lastDate = d;
          lastDateSeconds = d.toEpochDay() * 86_400L; // |epoch day| < 2^39: no overflow
        }
        // the same seconds as t.toEpochSecond(ZoneOffset.UTC), so the same micros and overflow errors
        row.setLong(i, micros(lastDateSeconds + t.toLocalTime().toSecondOfDay(), t.getNano()));
        return 8;
      }
      if (v instanceof OffsetDateTime t) {
        row.setLong(i, micros(t.toEpochSecond(), t.getNano()));
        return 8;
      }
      if (v instanceof Instant t) {
        row.setLong(i, micros(t.getEpochSecond(), t.getNano()));
        return 8;
      }
      return slow.write(v, row, i);
    }
  }

  /**
   * DECIMAL(p, s) with p up to 18 from a {@code BigDecimal} of scale {@code s}: its unscaled value
   * as a long (the value has at most p digits), without Spark's BigDecimal-backed {@code Decimal}.
   * Anything else (another scale, too many digits, another class) takes {@link SparkValues}' path,
   * which rounds or fails as it always has.
   */
  final class CompactDecimalWriter implements ColumnWriter {
    private final int precision;
    private final int scale;
    private final ColumnWriter slow;

    CompactDecimalWriter(int precision, int scale, ColumnWriter slow) {
      this.precision = precision;
      this.scale = scale;
      this.slow = slow;
    }

    @Override
    public long write(Object v, SpecificInternalRow row, int ordinal) {
      if (v instanceof BigDecimal bd && bd.scale() == scale && bd.precision() <= precision) {
        // at most 18 digits: the unscaled value is a long, and the value fits the type as it is
        row.update(ordinal, Decimal.createUnsafe(bd.movePointRight(scale).longValue(), precision, scale));
        return 8;
      }
      return slow.write(v, row, ordinal);
    }
  }
}
