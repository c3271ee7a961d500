package io.mssqlcdc.client.jdbc;

import io.mssqlcdc.client.CaptureInstance;
import io.mssqlcdc.errors.CdcErrors;
import io.mssqlcdc.lsn.Lsn;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * Resolves a configured capture instance name against the rows of
 * {@code sys.sp_cdc_help_change_data_capture} (reference §20 "Capture-instance resolution"):
 * exact name first, then ignoring case (two such matches fail, asking for the exact name); a
 * name no longer listed still resolves through its table's default name {@code <schema>_<table>}
 * (one table only). The result is the table's instances, oldest first (create date, then start
 * LSN).
 */
final class CaptureInstanceResolver {
  private static final Comparator<CaptureInstance> OLDEST_FIRST = Comparator
      .comparing(CaptureInstance::createDate, Comparator.nullsLast(Comparator.<LocalDateTime>naturalOrder()))
      .thenComparing(CaptureInstance::startLsn, Comparator.nullsLast(Comparator.<Lsn>naturalOrder()));

  private CaptureInstanceResolver() {}

  /** The instances of the table {@code name} tracks, or empty when nothing resolves. */
  static Optional<List<CaptureInstance>> resolve(String name, List<CaptureInstance> all) {
    List<CaptureInstance> exact = all.stream().filter(i -> i.name().equals(name)).toList();
    CaptureInstance found = exact.size() == 1 ? exact.get(0) : null;
    if (found == null) {
      List<CaptureInstance> loose = all.stream().filter(i -> i.isNamed(name)).toList();
      if (loose.size() > 1) {
        throw CdcErrors.captureInstanceAmbiguous(name, loose.stream().map(CaptureInstance::name).toList());
      }
      found = loose.isEmpty() ? null : loose.get(0);
    }
    if (found != null) {
      return Optional.of(instancesOf(found.sourceSchema(), found.sourceTable(), all));
    }
    Set<String> tables = new LinkedHashSet<>();
    for (CaptureInstance i : all) {
      if ((i.sourceSchema() + "_" + i.sourceTable()).equalsIgnoreCase(name)) {
        tables.add(i.sourceSchema() + "\u0000" + i.sourceTable());
      }
    }
    if (tables.size() == 1) {
      String[] t = tables.iterator().next().split("\u0000", 2);
      return Optional.of(instancesOf(t[0], t[1], all));
    }
    return Optional.empty();
  }

  /** Instance names that may belong to the table {@code name} was for (for the not-found message). */
  static List<String> candidates(String name, List<CaptureInstance> all) {
    String n = name.toLowerCase(Locale.ROOT);
    List<String> out = new ArrayList<>();
    for (CaptureInstance i : all) {
      String table = (i.sourceSchema() + "_" + i.sourceTable()).toLowerCase(Locale.ROOT);
      if (n.startsWith(table) || table.startsWith(n)) {
        out.add(i.name());
      }
    }
    return out;
  }

  /** {@code all} by source schema, then table (ignoring case), oldest first within a table. */
  static List<CaptureInstance> catalogOrder(List<CaptureInstance> all) {
    return all.stream()
        .sorted(Comparator.comparing((CaptureInstance i) -> i.sourceSchema().toLowerCase(Locale.ROOT))
            .thenComparing(i -> i.sourceTable().toLowerCase(Locale.ROOT))
            .thenComparing(OLDEST_FIRST))
        .toList();
  }

  static List<CaptureInstance> instancesOf(String schema, String table, List<CaptureInstance> all) {
    return all.stream()
        .filter(i -> i.sourceSchema().equals(schema) && i.sourceTable().equals(table))
        .sorted(OLDEST_FIRST)
        .toList();
  }

  /** {@code index_column_list} ({@code [a], [b]]c]}) as names, brackets removed and {@code ]]} undone. */
  static List<String> indexColumns(String list) {
    List<String> out = new ArrayList<>();
    if (list == null) {
      return out;
    }
    int i = 0;
    while (i < list.length()) {
      int open = list.indexOf('[', i);
      if (open < 0) {
        break;
      }
      StringBuilder name = new StringBuilder();
      int j = open + 1;
      while (j < list.length()) {
        char c = list.charAt(j++);
        if (c == ']') {
          if (j < list.length() && list.charAt(j) == ']') {
            name.append(']');
            j++;
          } else {
            break;
          }
        } else {
          name.append(c);
        }
      }
      out.add(name.toString());
      i = j;
    }
    return out;
  }
}
