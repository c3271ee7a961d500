package io.mssqlcdc.sink.tables;

import java.io.Serializable;
import java.util.Objects;

/**
 * A Delta table the library writes, named as the user gave it: a table name ({@code bronze.orders},
 * {@code main.cdc.orders}) or a path ({@code /lake/bronze/orders}, {@code abfss://...}). Anything
 * with a {@code /} or a {@code :} is a path, as in the Python reference; a path is addressed in SQL
 * as {@code delta.`<path>`}.
 *
 * <p>The text is kept exactly as given: facts rows carry it in {@code target}, and the reference's
 * lock and snapshot lookups match it exactly (spell a target the same way in every run).
 */
public final class TableRef implements Serializable {
  private static final long serialVersionUID = 1L;

  private final String text;

  private TableRef(String text) {
    this.text = text;
  }

  /** The table {@code nameOrPath} names. */
  public static TableRef of(String nameOrPath) {
    Objects.requireNonNull(nameOrPath, "table");
    if (nameOrPath.isBlank()) {
      throw new IllegalArgumentException("A table name or path is required, not a blank string.");
    }
    return new TableRef(nameOrPath);
  }

  /** Whether this names a path (it holds a {@code /} or a {@code :}). */
  public boolean isPath() {
    return text.indexOf('/') >= 0 || text.indexOf(':') >= 0;
  }

  /** The name or path as given. */
  public String text() {
    return text;
  }

  /** How SQL names it: the name, or {@code delta.`<path>`} with backticks doubled. */
  public String sql() {
    return isPath() ? "delta.`" + text.replace("`", "``") + "`" : text;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof TableRef r && r.text.equals(text);
  }

  @Override
  public int hashCode() {
    return text.hashCode();
  }

  @Override
  public String toString() {
    return text;
  }
}
