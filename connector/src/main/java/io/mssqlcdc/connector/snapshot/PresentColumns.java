package io.mssqlcdc.connector.snapshot;

import io.mssqlcdc.client.CapturedColumn;
import io.mssqlcdc.client.TableColumn;
import io.mssqlcdc.errors.CdcErrors;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Which captured columns a snapshot reads from the source table, and which it fills with NULL
 * (reference-behaviour §4.3, §12.2 {@code present_columns}).
 *
 * <p>A schema column is matched by name (ignoring case) to the columns the table's capture
 * instances capture, newest instance first, and through their {@code column_id} to the table as
 * it is now: a column dropped since (or dropped and re-added under the same name, which is another
 * column) reads NULL, and so does a computed column (CDC records NULL for it in every change row,
 * so the snapshot does too). A schema column no instance captures fails, as on the stream.
 *
 * @param read the table's columns to read, by their current names, in read order
 * @param source for each schema column, its index in {@link #read}, or -1 when it reads NULL
 * @param absent schema columns read as NULL because the table no longer has them
 * @param computed schema columns read as NULL because they are computed
 */
record PresentColumns(List<String> read, int[] source, List<String> absent, List<String> computed)
    implements Serializable {

  PresentColumns {
    read = List.copyOf(read);
    source = source.clone();
    absent = List.copyOf(absent);
    computed = List.copyOf(computed);
  }

  /**
   * Resolves {@code schemaColumns} against the instances' captured columns
   * ({@code capturedNewestFirst}, one list per instance, names of the instances in
   * {@code instanceNames} for the error) and the table's current columns.
   *
   * @throws io.mssqlcdc.errors.CdcConfigException when a schema column is captured by no instance
   */
  static PresentColumns resolve(
      List<String> schemaColumns, List<String> instanceNames, List<List<CapturedColumn>> capturedNewestFirst,
      List<TableColumn> tableColumns) {
    Map<Integer, TableColumn> byId = new HashMap<>();
    for (TableColumn t : tableColumns) {
      byId.put(t.columnId(), t);
    }
    List<String> read = new ArrayList<>();
    int[] source = new int[schemaColumns.size()];
    Arrays.fill(source, -1);
    List<String> absent = new ArrayList<>();
    List<String> computed = new ArrayList<>();
    List<String> notCaptured = new ArrayList<>();
    for (int i = 0; i < schemaColumns.size(); i++) {
      String name = schemaColumns.get(i);
      List<CapturedColumn> captures = capturesOf(name, capturedNewestFirst);
      if (captures.isEmpty()) {
        notCaptured.add(name);
        continue;
      }
      TableColumn present = null;
      boolean isComputed = false;
      for (CapturedColumn c : captures) {
        TableColumn t = byId.get(c.columnId());
        if (t != null) {
          present = t;
          isComputed = c.computed() || t.computed();
          break;
        }
      }
      if (present == null) {
        absent.add(name);
      } else if (isComputed) {
        computed.add(name);
      } else {
        source[i] = read.size();
        read.add(present.name());
      }
    }
    if (!notCaptured.isEmpty()) {
      throw CdcErrors.columnsNotCaptured(instanceNames, notCaptured);
    }
    return new PresentColumns(read, source, absent, computed);
  }

  private static List<CapturedColumn> capturesOf(String name, List<List<CapturedColumn>> capturedNewestFirst) {
    String key = name.toLowerCase(Locale.ROOT);
    List<CapturedColumn> found = new ArrayList<>();
    for (List<CapturedColumn> instance : capturedNewestFirst) {
      for (CapturedColumn c : instance) {
        if (c.name().toLowerCase(Locale.ROOT).equals(key)) {
          found.add(c);
        }
      }
    }
    return found;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PresentColumns p && read.equals(p.read) && Arrays.equals(source, p.source)
        && absent.equals(p.absent) && computed.equals(p.computed);
  }

  @Override
  public int hashCode() {
    return read.hashCode() * 31 + Arrays.hashCode(source);
  }

  @Override
  public String toString() {
    return "PresentColumns{read=" + read + ", source=" + Arrays.toString(source) + ", absent=" + absent
        + ", computed=" + computed + "}";
  }
}
