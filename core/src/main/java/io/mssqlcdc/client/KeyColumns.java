package io.mssqlcdc.client;

import io.mssqlcdc.types.SqlServerType;
import io.mssqlcdc.types.TypeMapping;
import java.time.LocalDate;
import java.util.List;
import java.util.Optional;

/**
 * What each {@link CdcClient} accepts as a key column of the source-table statements, decided
 * here once so that {@code SqlCdcClient} and the fake refuse the same keys with the same words:
 * which keys {@link CdcClient#keyBuckets} takes and their ordinals, and which key types a range
 * bound can be given for ({@link CdcClient#keyBound}, {@link CdcClient#readTable}).
 */
public final class KeyColumns {
  private KeyColumns() {}

  /** How {@link CdcClient#keyBuckets} turns a key into its ordinal. */
  public enum Ordinal {
    /** {@code tinyint}, {@code smallint}, {@code int}, {@code bigint}: the value itself. */
    INTEGER,
    /** {@code date}: days since 1970-01-01. */
    DATE
  }

  /** The first date an ordinal counts from. */
  public static final LocalDate EPOCH = LocalDate.of(1970, 1, 1);

  /** The ordinal kind of a key of type {@code type}; empty when key buckets cannot take it. */
  public static Optional<Ordinal> ordinal(SqlServerType type) {
    return switch (type.name()) {
      case "tinyint", "smallint", "int", "bigint" -> Optional.of(Ordinal.INTEGER);
      case "date" -> Optional.of(Ordinal.DATE);
      default -> Optional.empty();
    };
  }

  /** Why {@link CdcClient#keyBuckets} refuses {@code column} of type {@code type}. */
  public static String notBucketable(String column, SqlServerType type) {
    return column + " is " + type.declaration() + ", and key buckets take one integer (tinyint, smallint, int,"
        + " bigint) or date column: count other keys whole (countRows) or in keyset ranges";
  }

  /**
   * Checks the bounds of a {@link CdcClient#keyBuckets} range: one value each, integral numbers
   * ({@code Long}, {@code Integer}, {@code Short}, {@code Byte}, {@code BigInteger}) for an
   * integer key, {@code LocalDate} for a date key, never NULL (leave an end open instead).
   *
   * @throws IllegalArgumentException naming the bound otherwise
   */
  public static void checkBucketRange(Ordinal kind, KeyRange range) {
    checkBucketBound("lower", kind, range.lo());
    checkBucketBound("upper", kind, range.hi());
  }

  private static void checkBucketBound(String which, Ordinal kind, List<Object> bound) {
    if (bound == null) {
      return;
    }
    if (bound.size() != 1) {
      throw new IllegalArgumentException("Key buckets take one key column: the " + which + " bound needs one value, not "
          + bound.size());
    }
    Object v = bound.get(0);
    boolean fits = kind == Ordinal.DATE
        ? v instanceof LocalDate
        : v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte
            || v instanceof java.math.BigInteger;
    if (!fits) {
      throw new IllegalArgumentException("The " + which + " bound of key buckets over " + (kind == Ordinal.DATE
          ? "a date key must be a LocalDate" : "an integer key must be an integral number (Long, Integer, Short, Byte,"
          + " BigInteger)") + ", not " + (v == null ? "NULL (leave the end open instead)" : v.getClass().getSimpleName()
          + " " + v));
    }
  }

  /**
   * The ordinal of a key value as the fake holds it: an integral number as a {@code long}, a
   * date as days since 1970-01-01.
   *
   * @throws IllegalArgumentException for other values
   */
  public static long ordinalOf(Object value) {
    if (value instanceof Long || value instanceof Integer || value instanceof Short || value instanceof Byte) {
      return ((Number) value).longValue();
    }
    if (value instanceof LocalDate d) {
      return d.toEpochDay();
    }
    throw new IllegalArgumentException("No key ordinal for " + (value == null ? "NULL" : value.getClass().getSimpleName()));
  }

  /**
   * Why no range bound can be given for key column {@code column} of {@code type}, or null when
   * one can: {@code time} and types without a default Spark mapping cannot be read back from a
   * text bound, and {@code datetime2(7)}/{@code datetimeoffset(7)} only as the last key column
   * (bounds carry microseconds, so a truncated bound could swap two keys' order).
   */
  public static String unbindable(String column, SqlServerType type, boolean last) {
    if (bindable(type) == null) {
      return column + " is " + type.declaration() + ", which no text bound reads back";
    }
    boolean sevenDigits = (type.name().equals("datetime2") || type.name().equals("datetimeoffset"))
        && type.datetimePrecision() == 7;
    if (sevenDigits && !last) {
      return column + " is " + type.declaration() + " and not the last key column: bounds with microseconds could swap keys";
    }
    return null;
  }

  /** The declaration a bound of {@code type} is cast to, or null ({@code time}, unmapped types). */
  public static String bindable(SqlServerType type) {
    if (type.name().equals("time") || TypeMapping.sparkType(type).isEmpty()
        || List.of("text", "ntext", "image", "xml").contains(type.name())) {
      return null;
    }
    return type.declaration();
  }
}
