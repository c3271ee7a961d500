package io.mssqlcdc.reconcile;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.LocalDate;
import java.time.temporal.Temporal;
import java.util.HexFormat;
import java.util.List;

/**
 * Key values as JSON, the way the snapshot reader's {@code snapshotChunks} takes them and the
 * report shows them: numbers as numbers, dates and times as ISO-8601 text, binary as {@code 0x}
 * hex, a composite key as a list. Plain logic.
 */
public final class KeyJson {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final JsonNodeFactory F = JsonNodeFactory.instance;
  /** Days since 1970-01-01 of 0001-01-01 and 9999-12-31, SQL Server's {@code date} range. */
  static final long MIN_DAY = LocalDate.of(1, 1, 1).toEpochDay();
  static final long MAX_DAY = LocalDate.of(9999, 12, 31).toEpochDay();

  private KeyJson() {}

  /** The JSON of one key value. */
  public static JsonNode value(Object v) {
    if (v == null) {
      return F.nullNode();
    }
    if (v instanceof BigInteger b) {
      return F.numberNode(b);
    }
    if (v instanceof BigDecimal d) {
      return F.numberNode(d);
    }
    if (v instanceof Long l) {
      return F.numberNode(l);
    }
    if (v instanceof Number n && !(v instanceof Double) && !(v instanceof Float)) {
      return F.numberNode(n.longValue());
    }
    if (v instanceof Double d) {
      return F.numberNode(d);
    }
    if (v instanceof Float f) {
      return F.numberNode(f);
    }
    if (v instanceof Boolean b) {
      return F.booleanNode(b);
    }
    if (v instanceof byte[] bytes) {
      return F.textNode("0x" + HexFormat.of().withUpperCase().formatHex(bytes));
    }
    if (v instanceof Temporal) {
      return F.textNode(v.toString());
    }
    return F.textNode(v.toString());
  }

  /** A bound: one value for a one-column key, a list for a composite key; JSON null for an open end. */
  public static JsonNode bound(List<Object> key) {
    if (key == null) {
      return F.nullNode();
    }
    if (key.size() == 1) {
      return value(key.get(0));
    }
    ArrayNode a = F.arrayNode();
    key.forEach(v -> a.add(value(v)));
    return a;
  }

  /** {@link #bound} as text; null for an open end. */
  public static String boundText(List<Object> key) {
    return key == null ? null : text(bound(key));
  }

  /** A JSON node as compact text. */
  public static String text(JsonNode n) {
    try {
      return JSON.writeValueAsString(n);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** Parses JSON text (for facts details). */
  public static JsonNode parse(String text) {
    try {
      return JSON.readTree(text);
    } catch (Exception e) {
      throw new IllegalArgumentException("not JSON: " + text, e);
    }
  }

  /** A tier 1 ordinal bound of a date key: the date, clamped below to 0001-01-01; null (open) past 9999-12-31. */
  public static LocalDate dayBound(BigInteger ordinal) {
    if (ordinal.compareTo(BigInteger.valueOf(MAX_DAY)) > 0) {
      return null;
    }
    if (ordinal.compareTo(BigInteger.valueOf(MIN_DAY)) < 0) {
      return LocalDate.ofEpochDay(MIN_DAY);
    }
    return LocalDate.ofEpochDay(ordinal.longValueExact());
  }

  /**
   * A tier 1 ordinal bound of an integer key whose type holds {@code [min, max]}: clamped below to
   * {@code min} (never open, so NULL keys stay out); null (open) above {@code max}.
   */
  public static BigInteger intBound(BigInteger ordinal, long min, long max) {
    if (ordinal.compareTo(BigInteger.valueOf(max)) > 0) {
      return null;
    }
    if (ordinal.compareTo(BigInteger.valueOf(min)) < 0) {
      return BigInteger.valueOf(min);
    }
    return ordinal;
  }
}
