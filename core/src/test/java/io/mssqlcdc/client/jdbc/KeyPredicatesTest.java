package io.mssqlcdc.client.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.client.KeyRange;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.junit.jupiter.api.Test;

class KeyPredicatesTest {
  private static final KeyPredicates.Key A = new KeyPredicates.Key("a", "int", null);
  private static final KeyPredicates.Key B = new KeyPredicates.Key("b", "int", null);
  private static final KeyPredicates.Key C = new KeyPredicates.Key("c", "int", null);

  @Test
  void wholeTableHasNoPredicate() {
    assertThat(KeyPredicates.pieces(List.of(A), KeyRange.ALL)).isEmpty();
  }

  @Test
  void singleKeyIsOneSeek() {
    assertThat(sql(List.of(A), new KeyRange(List.of(10), List.of(20))))
        .containsExactly("[a] >= 10 AND ([a] < 20 OR [a] IS NULL)");
    assertThat(sql(List.of(A), new KeyRange(null, List.of(20)))).containsExactly("([a] < 20 OR [a] IS NULL)");
    assertThat(sql(List.of(A), new KeyRange(List.of(10), null))).containsExactly("[a] >= 10");
  }

  @Test
  void integerBoundsBeyondBigintAreNumericLiterals() {
    // a bucket's end past 2^63 - 1: CAST(? AS bigint) would overflow; a numeric literal compares exactly
    KeyPredicates.Key big = new KeyPredicates.Key("k", "bigint", null);
    List<SqlText> pieces = KeyPredicates.pieces(List.of(big),
        new KeyRange(List.of(new java.math.BigInteger("-9223372036854775809")), List.of(new java.math.BigInteger("9223372036854775808"))));
    assertThat(pieces).singleElement().satisfies(p -> {
      assertThat(p.sql()).isEqualTo("[k] >= -9223372036854775809 AND ([k] < 9223372036854775808 OR [k] IS NULL)");
      assertThat(p.params()).isEmpty();
    });
  }

  @Test
  void nullBoundsFollowNullsFirst() {
    assertThat(sql(List.of(A), new KeyRange(Arrays.asList((Object) null), null))).containsExactly("1 = 1");
    assertThat(sql(List.of(A), new KeyRange(null, Arrays.asList((Object) null)))).containsExactly("1 = 0");
    assertThat(sql(List.of(A, B), new KeyRange(Arrays.asList(null, 3), null)))
        .containsExactly("[a] IS NULL AND [b] >= 3", "[a] IS NOT NULL");
  }

  @Test
  void equalBoundsReadNothing() {
    assertThat(sql(List.of(A, B), new KeyRange(List.of(1, 2), List.of(1, 2)))).containsExactly("1 = 0");
  }

  @Test
  void sharedLeadingValuesBecomeEqualities() {
    assertThat(sql(List.of(A, B), new KeyRange(List.of(7, 1), List.of(7, 9))))
        .containsExactly("[a] = 7 AND [b] >= 1 AND ([b] < 9 OR [b] IS NULL)");
  }

  /** Brute force: over every (a, b, c) in {NULL, 0..2}^3 the pieces are disjoint and cover exactly [lo, hi). */
  @Test
  void piecesAreDisjointAndExactForEveryRangeOfThreeColumns() {
    List<List<Integer>> domain = tuples(3);
    List<List<Integer>> bounds = new ArrayList<>(domain);
    bounds.add(null);
    int checked = 0;
    for (List<Integer> lo : bounds) {
      for (List<Integer> hi : bounds) {
        if (lo == null && hi == null) {
          continue;
        }
        List<SqlText> pieces = KeyPredicates.pieces(List.of(A, B, C), new KeyRange(box(lo), box(hi)));
        for (List<Integer> row : domain) {
          boolean expected = (lo == null || ORDER.compare(row, lo) >= 0) && (hi == null || ORDER.compare(row, hi) < 0);
          int matches = 0;
          for (SqlText p : pieces) {
            matches += new Eval(p.sql(), Map.of("a", opt(row.get(0)), "b", opt(row.get(1)), "c", opt(row.get(2)))).run() ? 1 : 0;
          }
          if (matches != (expected ? 1 : 0)) {
            throw new AssertionError("row " + row + " in [" + lo + ", " + hi + ") matched " + matches + " of " + pieces);
          }
          checked++;
        }
      }
    }
    assertThat(checked).isGreaterThan(100_000);
  }

  @Test
  void typedBoundsAreTextParametersReadBackWithCast() {
    KeyPredicates.Key name = new KeyPredicates.Key("name", "nvarchar(50)", "Latin1_General_CI_AS");
    SqlText p = KeyPredicates.pieces(List.of(name), new KeyRange(List.of("m"), null)).get(0);
    assertThat(p.sql()).isEqualTo("[name] >= CAST(? COLLATE Latin1_General_CI_AS AS nvarchar(50))");
    assertThat(p.params()).containsExactly("m");

    KeyPredicates.Key bin = new KeyPredicates.Key("h", "varbinary(16)", null);
    assertThat(KeyPredicates.bound(bin, new byte[] {0x0a, (byte) 0xff}))
        .isEqualTo(SqlText.of("CONVERT(varbinary(16), ?, 1)", "0x0AFF"));
    KeyPredicates.Key dt = new KeyPredicates.Key("t", "datetime", null);
    assertThat(KeyPredicates.bound(dt, LocalDateTime.of(2026, 3, 1, 10, 0, 5, 123_456_000)).params())
        .containsExactly("2026-03-01T10:00:05.123");
    KeyPredicates.Key dt2 = new KeyPredicates.Key("t", "datetime2(6)", null);
    assertThat(KeyPredicates.bound(dt2, LocalDateTime.of(2026, 3, 1, 10, 0, 5, 123_456_000)).params())
        .containsExactly("2026-03-01T10:00:05.123456");
    KeyPredicates.Key dto = new KeyPredicates.Key("t", "datetimeoffset(3)", null);
    assertThat(KeyPredicates.bound(dto, OffsetDateTime.of(2026, 3, 1, 10, 0, 5, 0, ZoneOffset.ofHours(-3))).params())
        .containsExactly("2026-03-01T10:00:05.000000-03:00");
    assertThat(KeyPredicates.bound(new KeyPredicates.Key("d", "decimal(38,10)", null), new BigDecimal("1E+3")).params())
        .containsExactly("1000");
    assertThat(KeyPredicates.bound(new KeyPredicates.Key("d", "date", null), LocalDate.of(2026, 1, 2)).sql())
        .isEqualTo("CAST(? AS date)");
    assertThat(KeyPredicates.bound(new KeyPredicates.Key("i", "bigint", null), 42L)).isEqualTo(SqlText.of("42"));
  }

  @Test
  void rowversionBoundsConvertTheHexNotItsCharacters() {
    // CAST('0x00000000000007D1' AS timestamp) would cast the 18 characters' bytes; style 1 reads the hex.
    byte[] rv = {0, 0, 0, 0, 0, 0, 0x07, (byte) 0xD1};
    for (String type : List.of("timestamp", "rowversion")) {
      assertThat(KeyPredicates.bound(new KeyPredicates.Key("rv", type, null), rv))
          .isEqualTo(SqlText.of("CONVERT(binary(8), ?, 1)", "0x00000000000007D1"));
    }
    SqlText p = KeyPredicates.pieces(List.of(new KeyPredicates.Key("rv", "timestamp", null)),
        new KeyRange(List.of(rv), List.of(new byte[] {0, 0, 0, 0, 0, 0, 0x0F, (byte) 0xA0}))).get(0);
    assertThat(p.sql()).isEqualTo("[rv] >= CONVERT(binary(8), ?, 1) AND ([rv] < CONVERT(binary(8), ?, 1) OR [rv] IS NULL)");
    assertThat(p.params()).containsExactly("0x00000000000007D1", "0x0000000000000FA0");
  }

  @Test
  void typesAndCollationsAreValidated() {
    assertThatThrownBy(() -> new KeyPredicates.Key("a", "int); DROP TABLE x; --", null))
        .hasMessageContaining("Invalid SQL type");
    assertThatThrownBy(() -> new KeyPredicates.Key("a", "nvarchar(10)", "Latin1' --"))
        .hasMessageContaining("Invalid collation");
    assertThatThrownBy(() -> KeyPredicates.bound(new KeyPredicates.Key("a", null, null), "x"))
        .hasMessageContaining("no bindable type");
  }

  @Test
  void boundsMustMatchTheKeyWidth() {
    assertThatThrownBy(() -> KeyPredicates.pieces(List.of(A, B), new KeyRange(List.of(1), null)))
        .hasMessageContaining("one bound value per key column (2)");
  }

  // ---- helpers --------------------------------------------------------------------------

  private static List<String> sql(List<KeyPredicates.Key> keys, KeyRange r) {
    return KeyPredicates.pieces(keys, r).stream().map(SqlText::sql).toList();
  }

  /** SQL Server order with NULL first. */
  private static final Comparator<List<Integer>> ORDER = (x, y) -> {
    for (int i = 0; i < x.size(); i++) {
      int c = Comparator.nullsFirst(Comparator.<Integer>naturalOrder()).compare(x.get(i), y.get(i));
      if (c != 0) {
        return c;
      }
    }
    return 0;
  };

  private static List<List<Integer>> tuples(int n) {
    List<List<Integer>> out = new ArrayList<>();
    out.add(new ArrayList<>());
    for (int k = 0; k < n; k++) {
      List<List<Integer>> next = new ArrayList<>();
      for (List<Integer> t : out) {
        for (Integer v : Arrays.asList(null, 0, 1, 2)) {
          List<Integer> c = new ArrayList<>(t);
          c.add(v);
          next.add(c);
        }
      }
      out = next;
    }
    return out;
  }

  private static List<Object> box(List<Integer> l) {
    return l == null ? null : new ArrayList<>(l);
  }

  private static java.util.Optional<Integer> opt(Integer v) {
    return java.util.Optional.ofNullable(v);
  }

  /** Evaluates the predicate grammar KeyPredicates emits for inlined integers, with SQL NULL semantics. */
  private static final class Eval {
    private final String s;
    private final Map<String, java.util.Optional<Integer>> row;
    private int i;

    Eval(String s, Map<String, java.util.Optional<Integer>> row) {
      this.s = s;
      this.row = row;
    }

    boolean run() {
      Boolean v = or();
      check(i == s.length(), "trailing text");
      return Boolean.TRUE.equals(v);
    }

    private Boolean or() {
      Boolean v = and();
      while (eat(" OR ")) {
        Boolean w = and();
        v = Boolean.TRUE.equals(v) || Boolean.TRUE.equals(w) ? Boolean.TRUE : (v == null || w == null ? null : Boolean.FALSE);
      }
      return v;
    }

    private Boolean and() {
      Boolean v = atom();
      while (eat(" AND ")) {
        Boolean w = atom();
        v = Boolean.FALSE.equals(v) || Boolean.FALSE.equals(w) ? Boolean.FALSE : (v == null || w == null ? null : Boolean.TRUE);
      }
      return v;
    }

    private Boolean atom() {
      if (eat("(")) {
        Boolean v = or();
        check(eat(")"), "')'");
        return v;
      }
      if (eat("1 = 0")) {
        return false;
      }
      if (eat("1 = 1")) {
        return true;
      }
      check(eat("["), "an atom");
      String col = s.substring(i, s.indexOf(']', i));
      i += col.length() + 1;
      java.util.Optional<Integer> v = row.get(col);
      if (eat(" IS NOT NULL")) {
        return v.isPresent();
      }
      if (eat(" IS NULL")) {
        return v.isEmpty();
      }
      String op = eat(" >= ") ? ">=" : eat(" > ") ? ">" : eat(" < ") ? "<" : eat(" = ") ? "=" : null;
      check(op != null, "an operator");
      int start = i;
      while (i < s.length() && (Character.isDigit(s.charAt(i)) || s.charAt(i) == '-')) {
        i++;
      }
      int lit = Integer.parseInt(s.substring(start, i));
      if (v.isEmpty()) {
        return null;
      }
      int x = v.get();
      return switch (op) {
        case ">=" -> x >= lit;
        case ">" -> x > lit;
        case "<" -> x < lit;
        default -> Objects.equals(x, lit);
      };
    }

    private void check(boolean ok, String what) {
      if (!ok) {
        throw new AssertionError("expected " + what + " at " + i + " of " + s);
      }
    }

    private boolean eat(String t) {
      if (s.startsWith(t, i)) {
        i += t.length();
        return true;
      }
      return false;
    }
  }
}
