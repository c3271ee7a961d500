package io.mssqlcdc.client;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A range of a table's key, {@code [lo, hi)}: {@code lo} inclusive, {@code hi} exclusive,
 * {@code null} for an open end. A bound is a list with one value per key column (Java values as
 * in {@link ChangeCursor}; {@code null} entries are SQL NULL, which sorts first, as in SQL
 * Server). An open lower end also takes rows whose key is NULL.
 */
public record KeyRange(List<Object> lo, List<Object> hi) implements Serializable {
  /** The whole table. */
  public static final KeyRange ALL = new KeyRange(null, null);

  public KeyRange {
    lo = lo == null ? null : Collections.unmodifiableList(new ArrayList<>(lo));
    hi = hi == null ? null : Collections.unmodifiableList(new ArrayList<>(hi));
  }

  public boolean isAll() {
    return lo == null && hi == null;
  }
}
