package io.mssqlcdc.standin;

import io.mssqlcdc.types.SqlServerType;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * A WHERE clause of the key-range statements (Q21, Q24), parsed and evaluated with SQL Server's
 * three-valued logic: comparisons of a bracket-quoted column with an integer literal,
 * {@code CAST(? [COLLATE c] AS type)} or {@code CONVERT(type, ?, 1)}; {@code IS [NOT] NULL};
 * {@code 1 = 0}, {@code 1 = 1}; {@code AND}, {@code OR} and parentheses. Evaluating it over the
 * fake's rows checks what the predicate text selects, independently of how the client built it.
 */
final class Predicate {
  /** Declared type and case rule of a column, by name (ignoring case, as SQL Server resolves names). */
  interface Columns {
    /** The column's declared type, or {@link SqlError#invalidColumn}. */
    SqlServerType type(String column);

    boolean caseInsensitive(String column);
  }

  private interface Node {
    /** TRUE, FALSE or null (UNKNOWN). */
    Boolean eval(Function<String, Object> row);
  }

  private final Node root;
  private final List<String> columns;

  private Predicate(Node root, List<String> columns) {
    this.root = root;
    this.columns = columns;
  }

  /** Parses {@code sql}, taking its {@code ?} values from {@code params} in order. */
  static Predicate parse(String sql, Iterator<String> params, Columns columns) {
    Parser p = new Parser(tokens(sql), params, columns);
    Node n = p.or();
    if (p.i < p.t.size()) {
      throw new IllegalArgumentException("unexpected '" + p.t.get(p.i) + "' in predicate: " + sql);
    }
    return new Predicate(n, p.referenced);
  }

  /** Whether the row ({@code column name → value}) satisfies the predicate (UNKNOWN does not). */
  boolean test(Function<String, Object> row) {
    return Boolean.TRUE.equals(root.eval(row));
  }

  /** The columns the predicate reads, as written. */
  List<String> columns() {
    return columns;
  }

  // ---- tokens ----

  static List<String> tokens(String s) {
    List<String> out = new ArrayList<>();
    int i = 0;
    while (i < s.length()) {
      char c = s.charAt(i);
      if (Character.isWhitespace(c)) {
        i++;
      } else if (c == '[') {
        StringBuilder b = new StringBuilder("[");
        i++;
        while (i < s.length()) {
          char d = s.charAt(i++);
          if (d == ']') {
            if (i < s.length() && s.charAt(i) == ']') {
              b.append("]]");
              i++;
            } else {
              break;
            }
          } else {
            b.append(d);
          }
        }
        out.add(b.append(']').toString());
      } else if (Character.isDigit(c) || (c == '-' && i + 1 < s.length() && Character.isDigit(s.charAt(i + 1))
          && (out.isEmpty() || isOperator(out.get(out.size() - 1))))) {
        int j = i + 1;
        while (j < s.length() && (Character.isDigit(s.charAt(j)) || s.charAt(j) == '.')) {
          j++;
        }
        out.add(s.substring(i, j));
        i = j;
      } else if (Character.isLetter(c) || c == '_') {
        int j = i + 1;
        while (j < s.length() && (Character.isLetterOrDigit(s.charAt(j)) || s.charAt(j) == '_')) {
          j++;
        }
        out.add(s.substring(i, j));
        i = j;
      } else if ((c == '<' || c == '>' || c == '!') && i + 1 < s.length() && (s.charAt(i + 1) == '=' || s.charAt(i + 1) == '>')) {
        out.add(s.substring(i, i + 2));
        i += 2;
      } else {
        out.add(String.valueOf(c));
        i++;
      }
    }
    return out;
  }

  private static boolean isOperator(String t) {
    return t.equals("=") || t.equals("<") || t.equals(">") || t.equals(">=") || t.equals("<=") || t.equals("<>")
        || t.equals("(") || t.equals(",");
  }

  // ---- parser ----

  private sealed interface Operand permits ColumnRef, Literal {}

  private record ColumnRef(String name) implements Operand {}

  /** A constant: the value already converted (for CAST: to the type named in it). */
  private record Literal(Object value) implements Operand {}

  private static final class Parser {
    final List<String> t;
    final Iterator<String> params;
    final Columns columns;
    final List<String> referenced = new ArrayList<>();
    int i;

    Parser(List<String> t, Iterator<String> params, Columns columns) {
      this.t = t;
      this.params = params;
      this.columns = columns;
    }

    String peek() {
      return i < t.size() ? t.get(i) : "";
    }

    boolean word(String w) {
      if (peek().equalsIgnoreCase(w)) {
        i++;
        return true;
      }
      return false;
    }

    void expect(String w) {
      if (!word(w)) {
        throw new IllegalArgumentException("expected '" + w + "' but found '" + peek() + "' at token " + i + " of " + t);
      }
    }

    Node or() {
      Node left = and();
      while (word("OR")) {
        Node l = left;
        Node r = and();
        left = row -> {
          Boolean a = l.eval(row);
          Boolean b = r.eval(row);
          if (Boolean.TRUE.equals(a) || Boolean.TRUE.equals(b)) {
            return true;
          }
          return a == null || b == null ? null : false;
        };
      }
      return left;
    }

    Node and() {
      Node left = unary();
      while (word("AND")) {
        Node l = left;
        Node r = unary();
        left = row -> {
          Boolean a = l.eval(row);
          Boolean b = r.eval(row);
          if (Boolean.FALSE.equals(a) || Boolean.FALSE.equals(b)) {
            return false;
          }
          return a == null || b == null ? null : true;
        };
      }
      return left;
    }

    Node unary() {
      if (peek().equals("(")) {
        int save = i;
        i++;
        Node n = or();
        if (word(")")) {
          return n;
        }
        i = save;
      }
      Operand left = operand();
      if (word("IS")) {
        boolean not = word("NOT");
        expect("NULL");
        return row -> (value(left, row) == null) != not;
      }
      String op = peek();
      i++;
      Operand right = operand();
      String column = left instanceof ColumnRef l ? l.name() : right instanceof ColumnRef r ? r.name() : null;
      SqlServerType type = column == null ? SqlServerType.of("bigint") : columns.type(column);
      boolean ci = column != null && columns.caseInsensitive(column);
      return row -> {
        Object a = value(left, row);
        Object b = value(right, row);
        if (a == null || b == null) {
          return null;
        }
        int cmp = SqlValues.compare(a, b, type, ci);
        return switch (op) {
          case "=" -> cmp == 0;
          case "<" -> cmp < 0;
          case ">" -> cmp > 0;
          case ">=" -> cmp >= 0;
          case "<=" -> cmp <= 0;
          case "<>", "!=" -> cmp != 0;
          default -> throw new IllegalArgumentException("unknown comparison '" + op + "'");
        };
      };
    }

    Object value(Operand o, Function<String, Object> row) {
      return o instanceof ColumnRef c ? row.apply(c.name()) : ((Literal) o).value();
    }

    Operand operand() {
      String tok = peek();
      if (tok.startsWith("[")) {
        i++;
        String name = tok.substring(1, tok.length() - 1).replace("]]", "]");
        columns.type(name);
        referenced.add(name);
        return new ColumnRef(name);
      }
      if (!tok.isEmpty() && (Character.isDigit(tok.charAt(0)) || tok.startsWith("-"))) {
        i++;
        return new Literal(tok.contains(".") ? new java.math.BigDecimal(tok) : (Object) Long.valueOf(tok));
      }
      if (word("CAST")) {
        expect("(");
        expect("?");
        String text = param();
        String collation = null;
        if (word("COLLATE")) {
          collation = t.get(i++);
        }
        expect("AS");
        SqlServerType type = type();
        expect(")");
        if (collation != null && !collation.toUpperCase(Locale.ROOT).matches("[A-Z0-9_]+")) {
          throw new IllegalArgumentException("collation " + collation);
        }
        return new Literal(SqlValues.cast(text, type));
      }
      if (word("CONVERT")) {
        expect("(");
        SqlServerType type = type();
        expect(",");
        expect("?");
        String text = param();
        expect(",");
        String style = t.get(i++);
        expect(")");
        if (!style.equals("1") || !(type.name().equals("binary") || type.name().equals("varbinary"))) {
          throw new IllegalArgumentException("the stand-in evaluates CONVERT(binary|varbinary, ?, 1) only, not style "
              + style + " to " + type.declaration());
        }
        return new Literal(SqlValues.convertBinary(text, type));
      }
      throw new IllegalArgumentException("unexpected '" + tok + "' at token " + i + " of " + t);
    }

    String param() {
      if (!params.hasNext()) {
        throw new IllegalArgumentException("more ? marks than parameters");
      }
      return params.next();
    }

    SqlServerType type() {
      StringBuilder d = new StringBuilder(t.get(i++));
      if (peek().equals("(")) {
        d.append('(');
        i++;
        while (!peek().equals(")")) {
          d.append(t.get(i++));
        }
        i++;
        d.append(')');
      }
      return SqlServerType.parse(d.toString());
    }
  }
}
