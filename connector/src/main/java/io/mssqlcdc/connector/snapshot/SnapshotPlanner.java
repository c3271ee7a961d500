package io.mssqlcdc.connector.snapshot;

import io.mssqlcdc.client.CaptureInstance;
import io.mssqlcdc.client.CapturedColumn;
import io.mssqlcdc.client.CdcClient;
import io.mssqlcdc.client.KeyRange;
import io.mssqlcdc.client.SourceTable;
import io.mssqlcdc.client.TableColumn;
import io.mssqlcdc.client.TableRef;
import io.mssqlcdc.errors.CdcErrors;
import io.mssqlcdc.lsn.Lsn;
import io.mssqlcdc.types.SqlServerType;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Plans a snapshot read on the driver (reference-behaviour §12.2), in this order:
 * <ol>
 *   <li>resolve the capture instance (the configured one, or the table's newest when it is gone);
 *   <li>IMPORTANT: take the stamp ({@link SnapshotStamp}) before anything reads the table;
 *   <li>find the table, its columns now, and the columns present in it ({@link PresentColumns});
 *   <li>pick the key: {@code snapshotKeys}, else the unique index CDC uses;
 *   <li>cut the key into ranges: the {@code snapshotChunks} ones, one each; else uniform ranges
 *       of a single integer key, else NTILE tiles ({@link CdcClient#keyTiles}); a table without a
 *       usable key, or {@code numPartitions = 1}, is one whole-table partition.
 * </ol>
 */
final class SnapshotPlanner {
  private static final Logger LOG = LoggerFactory.getLogger(SnapshotPlanner.class);

  private final CdcClient client;

  SnapshotPlanner(CdcClient client) {
    this.client = client;
  }

  /** What to read and how it is cut. */
  record Request(
      String captureInstance, List<String> schemaColumns, Optional<Lsn> snapshotLsn,
      Optional<List<String>> snapshotKeys, Optional<SnapshotChunks> chunks, int numPartitions) {}

  SnapshotPlan plan(Request request) {
    List<CaptureInstance> instances = client.captureInstances(request.captureInstance());
    CaptureInstance instance = CaptureInstance.pick(instances, request.captureInstance());
    // IMPORTANT: stamp before anything below reads the table's rows (MIN/MAX, NTILE, the partitions).
    SnapshotStamp stamp = SnapshotStamp.take(client, instance, request.snapshotLsn());

    Source source = describe(instances, instance);
    PresentColumns present = PresentColumns.resolve(
        request.schemaColumns(), source.instanceNames(), source.capturedNewestFirst(), source.columns());
    if (!present.absent().isEmpty() || !present.computed().isEmpty()) {
      LOG.warn("mssql_cdc_snapshot: {} reads NULL for {} (no longer in the table) and {} (computed columns).",
          source.table(), present.absent(), present.computed());
    }

    KeyColumns key = source.key(request.snapshotKeys());
    if (request.chunks().isPresent()) {
      return chunked(stamp, source.table(), present, key, request.chunks().get());
    }
    return new SnapshotPlan(stamp, source.table(), present, key.ranged() ? key.names() : List.of(),
        whole(source.table(), key, request.numPartitions()));
  }

  /**
   * Checks {@code snapshotChunks} against the table's key from metadata alone (no row is read),
   * so that bounds of the wrong arity or type, or on a key that cannot be ranged, fail when the
   * DataFrame is created rather than when it is read.
   */
  void checkChunks(String captureInstance, Optional<List<String>> snapshotKeys, SnapshotChunks chunks) {
    if (chunks.allOpen()) {
      return;
    }
    List<CaptureInstance> instances = client.captureInstances(captureInstance);
    Source source = describe(instances, CaptureInstance.pick(instances, captureInstance));
    KeyColumns key = source.key(snapshotKeys);
    key.checkBoundable(source.table(), chunks);
    for (SnapshotChunk c : chunks.chunks()) {
      key.typed(chunks.json(), c.range());
    }
  }

  private Source describe(List<CaptureInstance> instances, CaptureInstance instance) {
    SourceTable source = client.sourceTable(instance.name());
    List<String> names = new ArrayList<>();
    List<List<CapturedColumn>> capturedNewestFirst = new ArrayList<>();
    for (int i = instances.size() - 1; i >= 0; i--) {
      names.add(0, instances.get(i).name());
      capturedNewestFirst.add(client.capturedColumns(instances.get(i).name()));
    }
    return new Source(source, client.tableColumns(source.table()), names, capturedNewestFirst);
  }

  /** The source table's metadata: its unique index, its columns now, and what its instances capture. */
  private record Source(
      SourceTable source, List<TableColumn> columns, List<String> instanceNames,
      List<List<CapturedColumn>> capturedNewestFirst) {

    TableRef table() {
      return source.table();
    }

    /** {@code snapshotKeys}, else the unique index CDC uses. */
    KeyColumns key(Optional<List<String>> snapshotKeys) {
      return KeyColumns.resolve(snapshotKeys.orElse(source.keyColumns()), columns, capturedNewestFirst);
    }
  }

  private SnapshotPlan chunked(
      SnapshotStamp stamp, TableRef table, PresentColumns present, KeyColumns key, SnapshotChunks chunks) {
    List<PlannedRange> ranges = new ArrayList<>();
    if (chunks.allOpen()) {
      for (SnapshotChunk c : chunks.chunks()) {
        ranges.add(new PlannedRange(KeyRange.ALL, c.chunk()));
      }
      return new SnapshotPlan(stamp, table, present, List.of(), ranges);
    }
    key.checkBoundable(table, chunks);
    for (SnapshotChunk c : chunks.chunks()) {
      ranges.add(new PlannedRange(key.typed(chunks.json(), c.range()), c.chunk()));
    }
    return new SnapshotPlan(stamp, table, present, key.names(), ranges);
  }

  private List<PlannedRange> whole(TableRef table, KeyColumns key, int numPartitions) {
    List<KeyRange> ranges = List.of(KeyRange.ALL);
    if (numPartitions > 1 && key.ranged()) {
      ranges = keyRanges(table, key, numPartitions);
    }
    List<PlannedRange> planned = new ArrayList<>();
    for (KeyRange r : ranges) {
      planned.add(new PlannedRange(r, null));
    }
    return planned;
  }

  private List<KeyRange> keyRanges(TableRef table, KeyColumns key, int n) {
    if (key.names().size() == 1) {
      Optional<List<Object>> minMax = client.keyMinMax(table, key.names().get(0), KeyRange.ALL);
      if (minMax.isEmpty() || minMax.get().get(0).equals(minMax.get().get(1))) {
        return List.of(KeyRange.ALL);
      }
      Object min = minMax.get().get(0);
      Object max = minMax.get().get(1);
      if (KeyRanges.isInteger(min) && KeyRanges.isInteger(max)) {
        return KeyRanges.uniform((Number) min, (Number) max, n);
      }
    }
    Optional<String> why = key.whyNotTiled();
    if (why.isPresent()) {
      LOG.warn("mssql_cdc_snapshot: {} is read in one partition: its key [{}] cannot be cut into ranges ({}).",
          table, String.join(", ", key.names()), why.get());
      return List.of(KeyRange.ALL);
    }
    return KeyRanges.between(client.keyTiles(table, key.names(), n));
  }

  /**
   * The key columns as the table has them now (current names, matched ignoring case) with their
   * SQL Server types where a capture instance captures them ({@code null} otherwise).
   */
  record KeyColumns(List<String> requested, List<String> names, List<SqlServerType> types, String missing) {

    static KeyColumns resolve(
        List<String> keys, List<TableColumn> tableColumns, List<List<CapturedColumn>> capturedNewestFirst) {
      List<String> names = new ArrayList<>();
      List<SqlServerType> types = new ArrayList<>();
      String missing = null;
      for (String k : keys) {
        TableColumn t = tableColumns.stream()
            .filter(c -> c.name().toLowerCase(Locale.ROOT).equals(k.toLowerCase(Locale.ROOT)))
            .findFirst().orElse(null);
        if (t == null) {
          missing = missing == null ? k : missing;
          continue;
        }
        names.add(t.name());
        types.add(typeOf(t, capturedNewestFirst));
      }
      return new KeyColumns(List.copyOf(keys), names, types, missing);
    }

    private static SqlServerType typeOf(TableColumn t, List<List<CapturedColumn>> capturedNewestFirst) {
      for (List<CapturedColumn> instance : capturedNewestFirst) {
        for (CapturedColumn c : instance) {
          if (c.columnId() == t.columnId()) {
            return c.type();
          }
        }
      }
      return null;
    }

    /** Whether ranges can be read by this key at all: it has columns and the table has them all. */
    boolean ranged() {
      return !requested.isEmpty() && missing == null;
    }

    /** Why NTILE bounds of this key cannot be bound, or empty when they can. */
    Optional<String> whyNotTiled() {
      for (int i = 0; i < types.size(); i++) {
        SqlServerType t = types.get(i);
        if (t == null) {
          return Optional.of(names.get(i) + " is not captured, so its type is unknown");
        }
        Optional<String> why = KeyValues.unrangeable(names.get(i), t, i == types.size() - 1);
        if (why.isPresent()) {
          return why;
        }
      }
      return Optional.empty();
    }

    void checkBoundable(TableRef table, SnapshotChunks chunks) {
      if (requested.isEmpty()) {
        throw CdcErrors.keyNotRangeable(table.toString(), requested,
            "the table has no unique index CDC uses, and snapshotKeys is not set");
      }
      if (missing != null) {
        throw CdcErrors.keyNotRangeable(table.toString(), requested, "the table has no column '" + missing + "' now");
      }
      if (chunks.arity() != names.size()) {
        throw CdcErrors.invalidSnapshotChunks(chunks.json(), "its bounds have " + chunks.arity()
            + " value(s), but the key [" + String.join(", ", names) + "] has " + names.size() + " column(s)");
      }
      for (int i = 0; i < types.size(); i++) {
        if (types.get(i) == null) {
          if (!chunks.integerBounds(i)) {
            throw CdcErrors.keyNotRangeable(table.toString(), requested, names.get(i)
                + " is not captured, so its type is unknown and only integer bounds can be used");
          }
          continue;
        }
        Optional<String> why = KeyValues.unrangeable(names.get(i), types.get(i), i == types.size() - 1);
        if (why.isPresent()) {
          throw CdcErrors.keyNotRangeable(table.toString(), requested, why.get());
        }
      }
    }

    /** {@code range} with each bound value typed as its key column. */
    KeyRange typed(String json, KeyRange range) {
      return new KeyRange(typed(json, range.lo()), typed(json, range.hi()));
    }

    private List<Object> typed(String json, List<Object> bound) {
      if (bound == null) {
        return null;
      }
      List<Object> out = new ArrayList<>(bound.size());
      for (int i = 0; i < bound.size(); i++) {
        try {
          out.add(KeyValues.typed(bound.get(i), types.get(i)));
        } catch (IllegalArgumentException e) {
          throw CdcErrors.invalidSnapshotChunks(json, "the bound " + e.getMessage() + " of key column "
              + names.get(i) + " (give its value as the text CAST reads back: ISO 8601 times, 0x hex binary)");
        }
      }
      return out;
    }
  }
}
