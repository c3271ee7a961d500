package io.mssqlcdc.silver;

import io.mssqlcdc.client.CaptureInstance;
import io.mssqlcdc.client.CdcClient;
import io.mssqlcdc.client.CdcClients;
import io.mssqlcdc.errors.SilverErrors;
import io.mssqlcdc.options.CdcReaderOptions;
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
 */
record SourceTableInfo(List<String> keys, Set<String> instancesLower) {

  /** Resolves keys and instances; opens one client when {@code reader} is given. */
  static SourceTableInfo resolve(String captureInstance, List<String> keys, CdcReaderOptions reader) {
    Set<String> instances = new LinkedHashSet<>();
    instances.add(captureInstance.toLowerCase(Locale.ROOT));
    if (reader == null) {
      if (keys == null) {
        throw SilverErrors.noKeys(captureInstance);
      }
      return new SourceTableInfo(keys, instances);
    }
    try (CdcClient client = CdcClients.open(reader)) {
      List<String> k = keys;
      if (k == null) {
        k = client.sourceTable(captureInstance).keyColumns();
        if (k.isEmpty()) {
          throw SilverErrors.noUniqueIndex(captureInstance);
        }
      }
      for (CaptureInstance ci : client.captureInstances(captureInstance)) {
        instances.add(ci.name().toLowerCase(Locale.ROOT));
      }
      return new SourceTableInfo(List.copyOf(k), instances);
    }
  }
}
