package io.mssqlcdc.sink.tables;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import org.apache.spark.sql.catalyst.expressions.And;
import org.apache.spark.sql.catalyst.expressions.AttributeReference;
import org.apache.spark.sql.catalyst.expressions.BinaryComparison;
import org.apache.spark.sql.catalyst.expressions.EqualNullSafe;
import org.apache.spark.sql.catalyst.expressions.EqualTo;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.GreaterThan;
import org.apache.spark.sql.catalyst.expressions.GreaterThanOrEqual;
import org.apache.spark.sql.catalyst.expressions.IsNotNull;
import org.apache.spark.sql.catalyst.expressions.IsNull;
import org.apache.spark.sql.catalyst.expressions.LessThan;
import org.apache.spark.sql.catalyst.expressions.LessThanOrEqual;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.expressions.Or;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Whether a Delta file may hold a row satisfying a predicate, from the file's statistics (its
 * {@code stats} JSON: {@code minValues}, {@code maxValues}, {@code nullCount}), on the driver: what
 * Delta's data skipping answers with a Spark job over the table's state, for the predicates a keyed
 * MERGE prunes by (comparisons of top-level columns with literals, {@code IS NULL}, {@code IS NOT NULL},
 * {@code AND}, {@code OR}). Conservative: whatever it cannot read (no statistics, a missing bound, a type or
 * expression it does not know, a value it cannot parse) may match, so a file is skipped only when its
 * bounds prove that no row can.
 *
 * <p>The bounds are taken as Delta writes them: a timestamp's truncated to milliseconds (the maximum
 * widened by one millisecond, as Delta's own skipping does) with its zone's offset in whole minutes (both
 * bounds widened by a minute more), a long string's minimum a prefix and its
 * maximum a prefix followed by a larger character (both still bounds in UTF-8 byte order, which is
 * Spark's order of strings without a collation). Floating-point, boolean, binary and collated string
 * columns are not compared.
 */
final class StatsSkipping {
  /**
   * Dates and timestamps before this year are not compared: a session with Spark's legacy time parser writes
   * them in the Julian calendar, which {@code java.time} does not read.
   */
  private static final int GREGORIAN = 1583;
  private static final ObjectMapper JSON = new ObjectMapper()
      .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

  private StatsSkipping() {}

  /** A file's statistics, parsed once; {@code root} null when it has none. */
  record Stats(JsonNode root) {
    static Stats parse(String json) {
      if (json == null || json.isEmpty()) {
        return new Stats(null);
      }
      try {
        return new Stats(JSON.readTree(json));
      } catch (java.io.IOException e) {
        return new Stats(null);
      }
    }

    /** Whether every row of the file holds NULL in {@code column} (its null count equals its row count). */
    boolean allNull(String column) {
      JsonNode nulls = bound("nullCount", column);
      JsonNode rows = root == null ? null : root.get("numRecords");
      return nulls != null && rows != null && nulls.canConvertToLong() && rows.canConvertToLong()
          && nulls.isIntegralNumber() && rows.isIntegralNumber() && nulls.asLong() == rows.asLong();
    }

    JsonNode bound(String kind, String column) {
      if (root == null) {
        return null;
      }
      JsonNode m = root.get(kind);
      JsonNode v = m == null ? null : m.get(column);
      return v == null || v.isNull() ? null : v;
    }
  }

  /** Whether a file with {@code stats} may hold a row for which {@code e} holds. */
  static boolean mayMatch(Expression e, Stats stats) {
    if (stats.root() == null) {
      return true;
    }
    if (e instanceof Literal l) {
      return !(l.value() instanceof Boolean b) || b;
    }
    if (e instanceof And a) {
      return mayMatch(a.left(), stats) && mayMatch(a.right(), stats);
    }
    if (e instanceof Or o) {
      return mayMatch(o.left(), stats) || mayMatch(o.right(), stats);
    }
    if (e instanceof IsNull n && n.child() instanceof AttributeReference a) {
      JsonNode count = stats.bound("nullCount", a.name());
      return count == null || !count.canConvertToLong() || count.asLong() > 0;
    }
    if (e instanceof IsNotNull n && n.child() instanceof AttributeReference a) {
      return !stats.allNull(a.name());
    }
    if (e instanceof BinaryComparison c && !(e instanceof EqualNullSafe)) {
      return compared(c, stats);
    }
    return true;
  }

  private static boolean compared(BinaryComparison c, Stats stats) {
    AttributeReference a;
    Literal l;
    boolean flipped;
    if (c.left() instanceof AttributeReference x && c.right() instanceof Literal y) {
      a = x;
      l = y;
      flipped = false;
    } else if (c.left() instanceof Literal y && c.right() instanceof AttributeReference x) {
      a = x;
      l = y;
      flipped = true;
    } else {
      return true;
    }
    if (l.value() == null || !l.dataType().equals(a.dataType())) {
      return true;
    }
    if (stats.allNull(a.name())) {
      // A comparison with NULL is never true.
      return false;
    }
    Integer min = compare(stats.bound("minValues", a.name()), l.value(), a.dataType(), false);
    Integer max = compare(stats.bound("maxValues", a.name()), l.value(), a.dataType(), true);
    // min/max: the bound compared with the literal (negative: below it); null when unknown.
    boolean attrBelowOrAt = min == null || min <= 0; // some row may be <= the literal
    boolean attrAboveOrAt = max == null || max >= 0; // some row may be >= the literal
    if (c instanceof EqualTo) {
      return attrBelowOrAt && attrAboveOrAt;
    }
    // Strict comparisons are taken as their non-strict forms (conservative).
    boolean attrAtLeast = c instanceof GreaterThanOrEqual || c instanceof GreaterThan;
    boolean attrAtMost = c instanceof LessThanOrEqual || c instanceof LessThan;
    if (flipped) {
      boolean t = attrAtLeast;
      attrAtLeast = attrAtMost;
      attrAtMost = t;
    }
    if (attrAtLeast) {
      return attrAboveOrAt;
    }
    if (attrAtMost) {
      return attrBelowOrAt;
    }
    return true;
  }

  /**
   * The bound {@code node} of a column of type {@code t} compared with the literal's value {@code v}
   * (Spark's internal value); null when unknown. A maximum is widened where Delta's bounds are truncated.
   */
  static Integer compare(JsonNode node, Object v, DataType t, boolean max) {
    if (node == null) {
      return null;
    }
    try {
      if (t instanceof ByteType || t instanceof ShortType || t instanceof IntegerType || t instanceof LongType) {
        if (!node.isIntegralNumber() || !node.canConvertToLong()) {
          return null;
        }
        return Long.compare(node.asLong(), ((Number) v).longValue());
      }
      if (t instanceof DecimalType) {
        if (!node.isNumber()) {
          return null;
        }
        BigDecimal b = node.decimalValue();
        return b.compareTo(((Decimal) v).toJavaBigDecimal());
      }
      if (t.equals(DataTypes.StringType)) {
        if (!node.isTextual()) {
          return null;
        }
        return UTF8String.fromString(node.textValue()).binaryCompare((UTF8String) v);
      }
      if (t instanceof DateType) {
        if (!node.isTextual()) {
          return null;
        }
        LocalDate d = LocalDate.parse(node.textValue());
        if (d.getYear() < GREGORIAN) {
          return null;
        }
        return Long.compare(d.toEpochDay(), ((Number) v).longValue());
      }
      if (t instanceof TimestampType || t instanceof TimestampNTZType) {
        if (!node.isTextual()) {
          return null;
        }
        long micros;
        if (t instanceof TimestampType) {
          OffsetDateTime o = OffsetDateTime.parse(node.textValue());
          if (o.getYear() < GREGORIAN) {
            return null;
          }
          micros = ChronoUnit.MICROS.between(OffsetDateTime.of(1970, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC), o);
        } else {
          LocalDateTime l = LocalDateTime.parse(node.textValue());
          if (l.getYear() < GREGORIAN) {
            return null;
          }
          micros = ChronoUnit.MICROS.between(LocalDateTime.of(1970, 1, 1, 0, 0), l);
        }
        // Written truncated to milliseconds, and a time zone's offset to minutes (a historical offset's seconds
        // are lost): the file's values lie within a minute and a millisecond of the bound either way.
        long slack = t instanceof TimestampType ? 61_000_000L : 1_000L;
        micros = max ? (micros > Long.MAX_VALUE - slack ? Long.MAX_VALUE : micros + slack)
            : (micros < Long.MIN_VALUE + slack ? Long.MIN_VALUE : micros - (slack - 1_000L));
        return Long.compare(micros, (Long) v);
      }
    } catch (RuntimeException e) {
      return null;
    }
    return null;
  }
}
