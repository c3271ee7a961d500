package io.mssqlcdc.silver;

import io.mssqlcdc.client.CaptureInstance;
import io.mssqlcdc.client.CapturedColumn;
import io.mssqlcdc.client.CdcClient;
import io.mssqlcdc.client.CdcClients;
import io.mssqlcdc.errors.SilverErrors;
import io.mssqlcdc.options.CdcReaderOptions;
import io.mssqlcdc.types.SqlServerType;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * What silver reads from SQL Server through the stream's options (reference-behaviour §16 inputs):
 * the capture instance's unique index (the default keys) and the capture instances of its table
 * (a stream that switched to a newer instance wrote rows of both). Without options: the keys given,
 * and the capture instance alone.
 *
 * @param keys the key columns (given, or the unique index)
 * @param instancesLower the capture instance and the other instances of its table, lower case
 *     (names are matched ignoring case, as SQL Server resolves them)
 * @param carriedLower the columns, lower case, whose before images always carry the row's value (NULL included);
 *     null when not asked for or without options (ApplyHistory's state at a snapshot, {@link HistoryRules})
 */
record SourceTableInfo(List<String> keys, Set<String> instancesLower, Set<String> carriedLower) {

  /** The SQL Server types whose before images hold NULL for a value they do not carry (with {@code (max)} lengths). */
  private static final Set<String> LARGE_OBJECTS = Set.of("text", "ntext", "image", "xml", "geography", "geometry",
      "hierarchyid");
  private static final Set<String> MAX_SIZED = Set.of("varchar", "nvarchar", "varbinary");

  /** Resolves keys and instances; opens one client when {@code reader} is given. */
  static SourceTableInfo resolve(String captureInstance, List<String> keys, CdcReaderOptions reader) {
    return resolve(captureInstance, keys, reader, false);
  }

  /**
   * Resolves keys and instances and, when {@code columnTypes} and {@code reader} is given, the columns whose before
   * images always carry the row's value ({@link #carriedLower}); opens one client when {@code reader} is given.
   */
  static SourceTableInfo resolve(String captureInstance, List<String> keys, CdcReaderOptions reader,
      boolean columnTypes) {
    Set<String> instances = new LinkedHashSet<>();
    instances.add(captureInstance.toLowerCase(Locale.ROOT));
    if (reader == null) {
      if (keys == null) {
        throw SilverErrors.noKeys(captureInstance);
      }
      return new SourceTableInfo(keys, instances, null);
    }
    try (CdcClient client = CdcClients.open(reader)) {
      List<String> k = keys;
      if (k == null) {
        k = client.sourceTable(captureInstance).keyColumns();
        if (k.isEmpty()) {
          throw SilverErrors.noUniqueIndex(captureInstance);
        }
      }
      List<CaptureInstance> all = client.captureInstances(captureInstance);
      for (CaptureInstance ci : all) {
        instances.add(ci.name().toLowerCase(Locale.ROOT));
      }
      Set<String> carried = null;
      if (columnTypes && !all.isEmpty()) {
        // The instances that exist now (the configured one may have been dropped after a switch); bronze's rows of
        // a dropped one are covered by "captured by every instance" only as far as the remaining ones say.
        List<List<CapturedColumn>> columns = new ArrayList<>();
        for (CaptureInstance ci : all) {
          columns.add(client.capturedColumns(ci.name()));
        }
        carried = carried(columns);
      }
      return new SourceTableInfo(List.copyOf(k), instances, carried);
    }
  }

  /**
   * The columns (lower case) whose before images always carry the row's value, NULL included: captured by every
   * capture instance, none of them computed (NULL in every change row) nor a large object (SQL Server stores NULL
   * for a {@code (max)} column an update did not change, and for text, ntext and image always).
   */
  static Set<String> carried(List<List<CapturedColumn>> instances) {
    Set<String> out = new LinkedHashSet<>();
    if (instances.isEmpty()) {
      return out;
    }
    for (CapturedColumn first : instances.get(0)) {
      boolean carried = true;
      for (List<CapturedColumn> columns : instances) {
        CapturedColumn c = columns.stream().filter(x -> x.name().equalsIgnoreCase(first.name())).findFirst()
            .orElse(null);
        carried &= c != null && !c.computed() && !largeObject(c.type());
      }
      if (carried) {
        out.add(first.name().toLowerCase(Locale.ROOT));
      }
    }
    return out;
  }

  static boolean largeObject(SqlServerType type) {
    String n = type.name().toLowerCase(Locale.ROOT);
    return LARGE_OBJECTS.contains(n) || (MAX_SIZED.contains(n) && type.maxLength() == SqlServerType.MAX_LENGTH);
  }

  /**
   * Per column of {@code captured} (bronze's order), whether a before image may hold NULL for a value it does not
   * carry (not {@link #carriedLower}); null when the columns' types are unknown.
   */
  boolean[] uncarriedMask(List<String> captured) {
    if (carriedLower == null) {
      return null;
    }
    boolean[] mask = new boolean[captured.size()];
    for (int i = 0; i < mask.length; i++) {
      mask[i] = !carriedLower.contains(captured.get(i).toLowerCase(Locale.ROOT));
    }
    return mask;
  }
}
