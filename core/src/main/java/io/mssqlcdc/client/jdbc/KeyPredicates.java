package io.mssqlcdc.client.jdbc;

import io.mssqlcdc.client.KeyRange;
import io.mssqlcdc.options.Identifiers;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Seekable predicates for a key range {@code [lo, hi)} (reference §12.2 "Range predicates").
 *
 * <p>T-SQL has no row-value comparison, and an index seek takes equalities on leading columns
 * plus one range. A range over a composite key is therefore cut into disjoint pieces, each
 * seekable, that the reader joins with {@code UNION ALL}: leading values both bounds share become
 * equalities; then, at the first column {@code j} where the bounds differ, pieces
 * {@code a = x AND b >= y} (lower side), {@code a > x AND a < u} (middle) and
 * {@code a = u AND b < v} (upper side), generalised per column. The lower-side pieces also check
 * "row &lt; hi" and the upper-side pieces {@code a > x}, so values that SQL Server compares equal
 * but Java does not (a case-insensitive collation: {@code 'a'} and {@code 'A'}) are read once.
 *
 * <p>NULL sorts first, as in SQL Server: {@code = NULL} is {@code IS NULL}; {@code > NULL} is
 * {@code IS NOT NULL}; {@code >= NULL} always holds; {@code < NULL} never does; {@code < x} also
 * admits NULLs ({@code (k < x OR k IS NULL)}).
 *
 * <p>Integer bounds are inlined (they are Java numbers, not text; a {@code BigInteger} beyond
 * {@code bigint} as a numeric literal, which compares exactly); every other bound is a text
 * parameter read back with {@code CAST(? [COLLATE <collation>] AS <declared type>)}, binary with
 * {@code CONVERT(<type>, ?, 1)} from {@code 0x} hex (rowversion/timestamp as {@code binary(8)}); datetimes as ISO 8601 (milliseconds for
 * {@code datetime}/{@code smalldatetime}, microseconds otherwise), decimals in plain notation.
 */
public final class KeyPredicates {
  private static final Pattern TYPE = Pattern.compile("^[a-z0-9]+(\\((max|\\d+(,\\d+)?)\\))?$");
  private static final Pattern COLLATION = Pattern.compile("^[A-Za-z0-9_]+$");
  private static final Set<String> INTEGERS = Set.of("tinyint", "smallint", "int", "bigint");
  private static final String FALSE = "1 = 0";
  private static final String TRUE = "1 = 1";

  private static final DateTimeFormatter MILLIS = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS", Locale.ROOT);
  private static final DateTimeFormatter MICROS = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSS", Locale.ROOT);
  private static final DateTimeFormatter MICROS_OFFSET =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSSxxx", Locale.ROOT);

  private KeyPredicates() {}

  /**
   * A key column and how its bounds are bound.
   *
   * @param name column name (bracket-quoted when used)
   * @param type declared type ({@code nvarchar(50)}, {@code decimal(18,2)}, {@code int}), or
   *     {@code null} when no bound of it can be bound ({@code time}, unmapped types)
   * @param collation collation of a character key, or {@code null}
   */
  public record Key(String name, String type, String collation) {
    public Key {
      Identifiers.name("key column", name);
      if (type != null && !TYPE.matcher(type).matches()) {
        throw new IllegalArgumentException("Invalid SQL type '" + type + "' for key column " + name);
      }
      if (collation != null && !COLLATION.matcher(collation).matches()) {
        throw new IllegalArgumentException("Invalid collation '" + collation + "' for key column " + name);
      }
    }

    String quoted() {
      return Identifiers.quote(name);
    }
  }

  /**
   * The pieces of {@code range}: each a predicate, pairwise disjoint, together exactly the rows
   * in the range. Empty for {@link KeyRange#ALL} (no WHERE at all).
   */
  public static List<SqlText> pieces(List<Key> keys, KeyRange range) {
    if (range.isAll()) {
      return List.of();
    }
    int n = keys.size();
    List<Object> lo = range.lo();
    List<Object> hi = range.hi();
    if (n == 0 || (lo != null && lo.size() != n) || (hi != null && hi.size() != n)) {
      throw new IllegalArgumentException("A key range needs one bound value per key column (" + n + "), got "
          + (lo == null ? "-" : lo.size()) + " and " + (hi == null ? "-" : hi.size()));
    }
    List<List<SqlText>> pieces = new ArrayList<>();
    if (hi == null) {
      for (int i = n - 1; i >= 0; i--) {
        pieces.add(withPrefix(keys, lo, 0, i, cmp(keys.get(i), i == n - 1 ? ">=" : ">", lo.get(i))));
      }
    } else if (lo == null) {
      for (int i = 0; i < n; i++) {
        pieces.add(withPrefix(keys, hi, 0, i, cmp(keys.get(i), "<", hi.get(i))));
      }
    } else {
      bothBounds(keys, lo, hi, pieces);
    }
    return simplify(pieces);
  }

  private static void bothBounds(List<Key> keys, List<Object> lo, List<Object> hi, List<List<SqlText>> pieces) {
    int n = keys.size();
    int j = 0;
    while (j < n && Objects.deepEquals(lo.get(j), hi.get(j))) {
      j++;
    }
    if (j == n) {
      pieces.add(List.of(SqlText.of(FALSE))); // [x, x) is empty
      return;
    }
    Key kj = keys.get(j);
    if (j == n - 1) {
      List<SqlText> p = withPrefix(keys, lo, 0, j, cmp(kj, ">=", lo.get(j)));
      p.add(cmp(kj, "<", hi.get(j)));
      pieces.add(p);
      return;
    }
    SqlText belowHi = lessThan(keys, hi, j);
    for (int i = n - 1; i > j; i--) {
      List<SqlText> p = withPrefix(keys, lo, 0, i, cmp(keys.get(i), i == n - 1 ? ">=" : ">", lo.get(i)));
      p.add(belowHi);
      pieces.add(p);
    }
    List<SqlText> middle = withPrefix(keys, lo, 0, j, cmp(kj, ">", lo.get(j)));
    middle.add(cmp(kj, "<", hi.get(j)));
    pieces.add(middle);
    SqlText aboveLo = cmp(kj, ">", lo.get(j));
    for (int i = j + 1; i < n; i++) {
      List<SqlText> p = withPrefix(keys, hi, 0, i, cmp(keys.get(i), "<", hi.get(i)));
      p.add(aboveLo);
      pieces.add(p);
    }
  }

  /** {@code (k_from..k_{n-1}) < (u_from..u_{n-1})} as nested OR/AND (a residual filter, not a seek). */
  private static SqlText lessThan(List<Key> keys, List<Object> hi, int from) {
    Key k = keys.get(from);
    SqlText lt = cmp(k, "<", hi.get(from));
    if (from == keys.size() - 1) {
      return lt;
    }
    SqlText eqRest = and(List.of(cmp(k, "=", hi.get(from)), lessThan(keys, hi, from + 1)));
    return or(lt, eqRest);
  }

  /** Equalities {@code k_from..k_{to-1} = bound} followed by {@code last}. */
  private static List<SqlText> withPrefix(List<Key> keys, List<Object> bound, int from, int to, SqlText last) {
    List<SqlText> p = new ArrayList<>();
    for (int i = from; i < to; i++) {
      p.add(cmp(keys.get(i), "=", bound.get(i)));
    }
    p.add(last);
    return p;
  }

  private static List<SqlText> simplify(List<List<SqlText>> pieces) {
    List<SqlText> out = new ArrayList<>();
    for (List<SqlText> piece : pieces) {
      if (piece.stream().anyMatch(c -> c.sql().equals(FALSE))) {
        continue;
      }
      List<SqlText> kept = piece.stream().filter(c -> !c.sql().equals(TRUE)).toList();
      out.add(kept.isEmpty() ? SqlText.of(TRUE) : and(kept));
    }
    return out.isEmpty() ? List.of(SqlText.of(FALSE)) : out;
  }

  private static SqlText and(List<SqlText> parts) {
    List<SqlText> kept = parts.stream().filter(c -> !c.sql().equals(TRUE)).toList();
    if (kept.stream().anyMatch(c -> c.sql().equals(FALSE))) {
      return SqlText.of(FALSE);
    }
    if (kept.isEmpty()) {
      return SqlText.of(TRUE);
    }
    SqlText r = kept.get(0);
    for (int i = 1; i < kept.size(); i++) {
      r = r.then(" AND ", kept.get(i));
    }
    return r;
  }

  private static SqlText or(SqlText a, SqlText b) {
    if (a.sql().equals(FALSE)) {
      return b;
    }
    if (b.sql().equals(FALSE)) {
      return a;
    }
    return SqlText.of("(").then("", a).then(" OR ", b).then("", SqlText.of(")"));
  }

  /** {@code k <op> v} with SQL Server's NULL-first ordering. */
  static SqlText cmp(Key k, String op, Object v) {
    String c = k.quoted();
    if (v == null) {
      return SqlText.of(switch (op) {
        case "=" -> c + " IS NULL";
        case ">" -> c + " IS NOT NULL";
        case ">=" -> TRUE;
        case "<" -> FALSE;
        default -> throw new IllegalArgumentException(op);
      });
    }
    SqlText b = bound(k, v);
    if (op.equals("<")) {
      return SqlText.of("(" + c + " < ").then("", b).then("", SqlText.of(" OR " + c + " IS NULL)"));
    }
    return SqlText.of(c + " " + op + " ").then("", b);
  }

  /** The bound {@code v} of key {@code k}: an inlined integer or a typed text parameter. */
  static SqlText bound(Key k, Object v) {
    if (k.type() == null) {
      throw new IllegalArgumentException("Key column " + k.name() + " has no bindable type");
    }
    String base = k.type().replaceFirst("\\(.*", "");
    if (INTEGERS.contains(base) && (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte)) {
      return SqlText.of(Long.toString(((Number) v).longValue()));
    }
    if (INTEGERS.contains(base) && v instanceof java.math.BigInteger b) {
      // beyond bigint (a bucket's end past 2^63 - 1): a numeric literal, which compares exactly where
      // CAST(? AS bigint) would overflow
      return SqlText.of(b.toString());
    }
    if (base.equals("binary") || base.equals("varbinary")) {
      return SqlText.of("CONVERT(" + k.type() + ", ?, 1)", text(v, base));
    }
    if (base.equals("timestamp") || base.equals("rowversion")) {
      // rowversion is binary(8); CAST(? AS timestamp) would cast the text's characters, not the hex
      return SqlText.of("CONVERT(binary(8), ?, 1)", text(v, base));
    }
    String collate = k.collation() == null ? "" : " COLLATE " + k.collation();
    return SqlText.of("CAST(?" + collate + " AS " + k.type() + ")", text(v, base));
  }

  /** The text {@code CAST(? AS <base type>)} reads back as {@code v}. */
  static String text(Object v, String baseType) {
    if (v instanceof byte[] b) {
      return "0x" + HexFormat.of().withUpperCase().formatHex(b);
    }
    if (v instanceof LocalDateTime t) {
      return (baseType.equals("datetime") || baseType.equals("smalldatetime") ? MILLIS : MICROS).format(t);
    }
    if (v instanceof OffsetDateTime t) {
      return MICROS_OFFSET.format(t);
    }
    if (v instanceof LocalDate d) {
      return d.toString();
    }
    if (v instanceof BigDecimal d) {
      return d.toPlainString();
    }
    if (v instanceof Boolean b) {
      return b ? "1" : "0";
    }
    return v.toString();
  }
}
