package io.mssqlcdc.client;

import java.util.List;

/**
 * How a requested column name finds a captured or table column, the same for every
 * {@link CdcClient}: the exact name first, else the first name equal ignoring case (in the
 * order given, i.e. capture order). The connector matches declared {@code columns} to captured
 * columns ignoring case everywhere (schema inference, the planner, the snapshot), so a client must
 * too, and then read the column under SQL Server's own spelling: {@code [orderid]} resolves to
 * {@code OrderId} only in a database whose collation ignores case.
 */
public final class ColumnNames {
  private ColumnNames() {}

  /** The index in {@code names} of {@code requested}, or -1 when none matches. */
  public static int indexOf(String requested, List<String> names) {
    int folded = -1;
    for (int i = 0; i < names.size(); i++) {
      String n = names.get(i);
      if (n.equals(requested)) {
        return i;
      }
      if (folded < 0 && n.equalsIgnoreCase(requested)) {
        folded = i;
      }
    }
    return folded;
  }

  /** {@link #indexOf} over an array. */
  public static int indexOf(String requested, String[] names) {
    return indexOf(requested, java.util.Arrays.asList(names));
  }
}
