package io.mssqlcdc.connector;

import io.mssqlcdc.errors.CdcConfigException;
import io.mssqlcdc.errors.CdcErrorCode;
import io.mssqlcdc.errors.CdcErrors;
import io.mssqlcdc.types.TemporalText;
import java.io.Serializable;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.HexFormat;
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
 * Casts the Java values a {@link io.mssqlcdc.client.CdcClient} returns to Spark's internal
 * representation of the declared column type (reference-behaviour §4.4: every value is cast to
 * the declared schema before Spark sees it). One {@link Converter} per column, chosen once per
 * partition. A value that cannot be cast (an overflow, text that is no number) fails naming the
 * column, its value and the declared type; so does one the type holds only rounded (2.5 into
 * INT, 1.2345 into DECIMAL(18,2)), as the reference's safe cast does, unless the reader sets
 * {@code allowPrecisionLoss}. Text times may be SQL Server's {@code datetimeoffset} form
 * ({@code 2026-03-01 10:20:30.1234567 -03:00}).
 *
 * <p>Time values: {@code LocalDateTime} (datetime, datetime2) is a wall time, read as UTC by
 * {@code TIMESTAMP_NTZ} and {@code TIMESTAMP}; {@code OffsetDateTime} (datetimeoffset) and
 * {@code Instant} are instants, written to {@code TIMESTAMP_NTZ} as their UTC wall time.
 * Precision is truncated to microseconds (Spark's).
 */
public final class SparkValues {
  private SparkValues() {}

  /** Converts one column's values. */
  @FunctionalInterface
  public interface Converter extends Serializable {
    /** The Spark internal value of {@code v} ({@code null} stays null). */
    Object convert(Object v);
  }

  /** The converter of values of {@code column} to {@code type}; a value that would lose digits fails. */
  public static Converter converter(String column, DataType type) {
    return converter(column, type, false);
  }

  /**
   * The converter of values of {@code column} to {@code type}.
   *
   * @param allowPrecisionLoss option {@code allowPrecisionLoss}: round a value with more
   *     fractional digits than the type keeps (toward zero for integers, half up for decimals)
   *     instead of failing; an overflow fails either way
   */
  public static Converter converter(String column, DataType type, boolean allowPrecisionLoss) {
    Converter c = base(column, type, allowPrecisionLoss);
    return v -> v == null ? null : c.convert(v);
  }

  private static Converter base(String column, DataType type, boolean lossy) {
    if (type instanceof StringType) {
      return v -> UTF8String.fromString(text(v));
    }
    if (type instanceof IntegerType) {
      return v -> (int) integral(column, type, v, Integer.MIN_VALUE, Integer.MAX_VALUE, lossy);
    }
    if (type instanceof LongType) {
      return v -> integral(column, type, v, Long.MIN_VALUE, Long.MAX_VALUE, lossy);
    }
    if (type instanceof ShortType) {
      return v -> (short) integral(column, type, v, Short.MIN_VALUE, Short.MAX_VALUE, lossy);
    }
    if (type instanceof ByteType) {
      return v -> (byte) integral(column, type, v, Byte.MIN_VALUE, Byte.MAX_VALUE, lossy);
    }
    if (type instanceof BooleanType) {
      return v -> bool(column, type, v);
    }
    if (type instanceof DoubleType) {
      return v -> number(column, type, v).doubleValue();
    }
    if (type instanceof FloatType) {
      return v -> number(column, type, v).floatValue();
    }
    if (type instanceof DecimalType d) {
      return v -> decimal(column, d, v, lossy);
    }
    if (type instanceof TimestampNTZType) {
      return v -> micros(column, type, v);
    }
    if (type instanceof TimestampType) {
      return v -> micros(column, type, v);
    }
    if (type instanceof DateType) {
      return v -> date(column, type, v);
    }
    if (type instanceof BinaryType) {
      return v -> v instanceof byte[] b ? b : text(v).getBytes(StandardCharsets.UTF_8);
    }
    throw new CdcConfigException(CdcErrorCode.UNSUPPORTED_TYPE,
        "Column '" + column + "' is declared " + type.sql() + ", which this connector cannot fill: declare it"
            + " STRING, a numeric, boolean, date, timestamp or binary type in 'columns'.");
  }

  /** Text of a value: strings as they are, times in ISO-8601, bytes as 0x hex. */
  static String text(Object v) {
    if (v instanceof String s) {
      return s;
    }
    if (v instanceof byte[] b) {
      return "0x" + HexFormat.of().withUpperCase().formatHex(b);
    }
    if (v instanceof BigDecimal bd) {
      return bd.toPlainString();
    }
    return v.toString();
  }

  private static long integral(String column, DataType type, Object v, long min, long max, boolean lossy) {
    long r;
    if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte) {
      r = ((Number) v).longValue();
    } else if (v instanceof Boolean b) {
      r = b ? 1 : 0;
    } else {
      if ((v instanceof Double d && !Double.isFinite(d)) || (v instanceof Float f && !Float.isFinite(f))) {
        throw cannotCast(column, type, v);
      }
      BigDecimal bd = v instanceof BigDecimal x ? x : bigDecimal(column, type, v);
      BigDecimal whole = bd.setScale(0, RoundingMode.DOWN);
      try {
        r = whole.longValueExact();
      } catch (ArithmeticException e) {
        throw cannotCast(column, type, v);
      }
      if (!lossy && whole.compareTo(bd) != 0 && r >= min && r <= max) {
        throw CdcErrors.valueLosesPrecision(column, text(v), type.sql(), Long.toString(r));
      }
    }
    if (r < min || r > max) {
      throw cannotCast(column, type, v);
    }
    return r;
  }

  private static Number number(String column, DataType type, Object v) {
    if (v instanceof Number n) {
      return n;
    }
    if (v instanceof Boolean b) {
      return b ? 1 : 0;
    }
    return bigDecimal(column, type, v);
  }

  private static BigDecimal bigDecimal(String column, DataType type, Object v) {
    if (v instanceof BigDecimal bd) {
      return bd;
    }
    if (v instanceof BigInteger bi) {
      return new BigDecimal(bi);
    }
    if (v instanceof Double || v instanceof Float) {
      return BigDecimal.valueOf(((Number) v).doubleValue());
    }
    if (v instanceof Number n) {
      return BigDecimal.valueOf(n.longValue());
    }
    try {
      return new BigDecimal(text(v).strip());
    } catch (NumberFormatException e) {
      throw cannotCast(column, type, v);
    }
  }

  private static Decimal decimal(String column, DecimalType type, Object v, boolean lossy) {
    if ((v instanceof Double d && !Double.isFinite(d)) || (v instanceof Float f && !Float.isFinite(f))) {
      throw cannotCast(column, type, v);
    }
    BigDecimal bd = bigDecimal(column, type, v);
    BigDecimal scaled = bd.setScale(type.scale(), RoundingMode.HALF_UP);
    if (scaled.precision() > type.precision()) {
      throw cannotCast(column, type, v);
    }
    if (!lossy && scaled.compareTo(bd) != 0) {
      throw CdcErrors.valueLosesPrecision(column, text(v), type.sql(), scaled.toPlainString());
    }
    return Decimal.apply(scaled, type.precision(), type.scale());
  }

  private static boolean bool(String column, DataType type, Object v) {
    if (v instanceof Boolean b) {
      return b;
    }
    if (v instanceof Number n) {
      return n.longValue() != 0;
    }
    String s = text(v).strip().toLowerCase(java.util.Locale.ROOT);
    return switch (s) {
      case "true", "1" -> true;
      case "false", "0" -> false;
      default -> throw cannotCast(column, type, v);
    };
  }

  private static long micros(String column, DataType type, Object v) {
    Instant i;
    if (v instanceof LocalDateTime ldt) {
      i = ldt.toInstant(ZoneOffset.UTC);
    } else if (v instanceof OffsetDateTime odt) {
      i = odt.toInstant();
    } else if (v instanceof Instant inst) {
      i = inst;
    } else if (v instanceof LocalDate d) {
      i = d.atStartOfDay().toInstant(ZoneOffset.UTC);
    } else if (v instanceof java.sql.Timestamp ts) {
      i = ts.toLocalDateTime().toInstant(ZoneOffset.UTC);
    } else {
      i = parseInstant(column, type, text(v));
    }
    return micros(i);
  }

  /** Spark's timestamp value of {@code i}: microseconds since the epoch, truncated. */
  public static long micros(Instant i) {
    Instant t = i.truncatedTo(ChronoUnit.MICROS);
    return Math.addExact(Math.multiplyExact(t.getEpochSecond(), 1_000_000L), t.getNano() / 1000);
  }

  /** Text with an offset is that instant; without one, a wall time read as UTC ({@link TemporalText}). */
  private static Instant parseInstant(String column, DataType type, String s) {
    try {
      return TemporalText.parse(s).instant();
    } catch (java.time.DateTimeException e) {
      throw cannotCast(column, type, s);
    }
  }

  private static int date(String column, DataType type, Object v) {
    LocalDate d;
    if (v instanceof LocalDate ld) {
      d = ld;
    } else if (v instanceof LocalDateTime ldt) {
      d = ldt.toLocalDate();
    } else if (v instanceof OffsetDateTime odt) {
      d = odt.atZoneSameInstant(ZoneOffset.UTC).toLocalDate();
    } else {
      try {
        d = LocalDate.parse(text(v).strip());
      } catch (java.time.format.DateTimeParseException e) {
        throw cannotCast(column, type, v);
      }
    }
    return Math.toIntExact(d.toEpochDay());
  }

  private static CdcConfigException cannotCast(String column, DataType type, Object v) {
    return CdcErrors.valueNotCastable(column, text(v), type.sql());
  }
}
