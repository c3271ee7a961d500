package io.mssqlcdc.silver;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigInteger;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;

/**
 * A chunk bound of the facts (JSON, as the snapshot's plan cut it on SQL Server) as a Spark key
 * value that puts each silver key on the side SQL Server put it, for a chunk's range deletes
 * (reference-behaviour §16 step 12, §33 O9). Only three key kinds order the same on both sides:
 * <ul>
 *   <li>integers (tinyint to bigint): compared as BIGINT; a bound above BIGINT's range (the plan's
 *       MAX + 1) is open: no key lies above it;
 *   <li>dates: the first 10 characters;
 *   <li>datetime2 without offset ({@code TIMESTAMP_NTZ}): seconds plus up to 6 fractional digits. A
 *       datetime2(7) bound may have a 100 ns digit Spark keys lack (drivers truncate them), so the
 *       keys of that microsecond fall on either side: a lower bound with such digits moves up 1 µs
 *       past them, an upper one, truncated, already excludes them. A lower bound that cannot move
 *       up (the last microsecond Spark holds) drops the chunk from range deletes.
 * </ul>
 */
final class ChunkBounds {
  /** The key kinds range deletes apply to. */
  enum KeyKind { INTEGRAL, DATE, TIMESTAMP_NTZ }

  private static final BigInteger LONG_MAX = BigInteger.valueOf(Long.MAX_VALUE);
  private static final BigInteger LONG_MIN = BigInteger.valueOf(Long.MIN_VALUE);
  private static final LocalDateTime LAST = LocalDateTime.of(9999, 12, 31, 23, 59, 59, 999_999_000);

  /** A converted bound: {@code value} null means open. */
  record Bound(Object value) {
    static final Bound OPEN = new Bound(null);

    boolean open() {
      return value == null;
    }
  }

  /** Thrown for a lower bound past the last key Spark can hold: the chunk is left out. */
  static final class Overflow extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Overflow(String message) {
      super(message, null, false, false);
    }
  }

  private ChunkBounds() {}

  /**
   * The bound {@code v} (JSON null: open) for a key of {@code kind}.
   *
   * @param lower whether it is a chunk's first key (inclusive) rather than its end (exclusive)
   * @throws Overflow for a lower bound past the last value of the kind
   * @throws IllegalArgumentException when the text is no value of the kind
   */
  static Bound bound(JsonNode v, KeyKind kind, boolean lower) {
    if (v == null || v.isNull() || v.isMissingNode()) {
      return Bound.OPEN;
    }
    return switch (kind) {
      case INTEGRAL -> integral(v, lower);
      case DATE -> new Bound(LocalDate.parse(text(v).substring(0, Math.min(10, text(v).length()))));
      case TIMESTAMP_NTZ -> timestamp(text(v), lower);
    };
  }

  private static Bound integral(JsonNode v, boolean lower) {
    BigInteger i = v.isNumber() ? v.bigIntegerValue() : new BigInteger(text(v).strip());
    if (i.compareTo(LONG_MAX) > 0) {
      if (lower) {
        throw new Overflow("lower bound " + i + " is above BIGINT");
      }
      return Bound.OPEN; // the plan's MAX + 1 past BIGINT: no key above
    }
    if (i.compareTo(LONG_MIN) < 0) {
      if (lower) {
        return Bound.OPEN; // no key below
      }
      throw new Overflow("upper bound " + i + " is below BIGINT");
    }
    return new Bound(i.longValueExact());
  }

  private static Bound timestamp(String text, boolean lower) {
    String t = text.strip().replace(' ', 'T');
    int dot = t.indexOf('.');
    String whole = dot < 0 ? t : t.substring(0, dot);
    String digits = dot < 0 ? "" : t.substring(dot + 1);
    LocalDateTime base;
    try {
      base = LocalDateTime.parse(whole);
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException("not a datetime2 bound: '" + text + "'", e);
    }
    String micros = (digits.length() > 6 ? digits.substring(0, 6) : digits);
    micros = (micros + "000000").substring(0, 6);
    LocalDateTime value = base.plus(Long.parseLong(micros), ChronoUnit.MICROS);
    boolean finer = digits.length() > 6 && !digits.substring(6).chars().allMatch(c -> c == '0');
    if (lower && finer) {
      if (!value.isBefore(LAST)) {
        throw new Overflow("lower bound " + text + " is past the last microsecond");
      }
      value = value.plus(1, ChronoUnit.MICROS);
    }
    return new Bound(value);
  }

  private static String text(JsonNode v) {
    return v.isTextual() ? v.asText() : v.toString();
  }
}
