package io.mssqlcdc.fake;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Static helpers for scripts: {@code row("id", 1, "name", "a")} and {@code key(1)}. */
public final class FakeRows {
  private FakeRows() {}

  /** A row (or the changed columns of an update) from name/value pairs; values may be null. */
  public static Map<String, Object> row(Object... namesAndValues) {
    if (namesAndValues.length % 2 != 0) {
      throw FakeErrors.invalidArgument("row(...)", namesAndValues.length + " arguments", "name/value pairs");
    }
    Map<String, Object> row = new LinkedHashMap<>();
    for (int i = 0; i < namesAndValues.length; i += 2) {
      if (!(namesAndValues[i] instanceof String name)) {
        throw FakeErrors.invalidArgument("Argument " + (i + 1) + " of row(...)", namesAndValues[i], "a column name");
      }
      row.put(name, namesAndValues[i + 1]);
    }
    return row;
  }

  /** A key: one value per key column, in key order. */
  public static List<Object> key(Object... values) {
    return new ArrayList<>(Arrays.asList(values));
  }
}
