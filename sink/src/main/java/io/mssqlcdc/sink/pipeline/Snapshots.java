package io.mssqlcdc.sink.pipeline;

import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lower;
import static org.apache.spark.sql.functions.max;

import io.mssqlcdc.client.CaptureInstance;
import io.mssqlcdc.client.CdcClient;
import io.mssqlcdc.connector.CdcColumns;
import io.mssqlcdc.connector.snapshot.SnapshotStamp;
import io.mssqlcdc.lsn.Lsn;
import io.mssqlcdc.sink.BronzeTable;
import io.mssqlcdc.sink.tables.DeltaTables;
import io.mssqlcdc.sink.tables.TableRef;
import io.mssqlcdc.sink.tables.TableRunner;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Full snapshots in bronze (reference-behaviour §12.3, §12.4): taking one (stamp first, then one
 * append of every row as operation 0 with {@code _snapshot} = the stamp) and finding the newest
 * one a target holds.
 */
final class Snapshots {
  private static final Logger LOG = LoggerFactory.getLogger(Snapshots.class);

  private Snapshots() {}

  /**
   * Takes a full snapshot of the table into {@code target}: stamps it ({@code max_lsn} before
   * the read), reads {@code format("mssql_cdc_snapshot")} with that {@code snapshotLsn}, and
   * appends the rows in one commit ({@code mergeSchema}, {@code userMetadata}
   * {@code {"snapshot": "<ci>", "lsn": ..., "commit_ts": ...}}, no txn keys). An empty table
   * writes no commit (0 rows).
   */
  static TakenSnapshot take(SparkSession spark, Map<String, String> readerOptions, TableRef target,
      String captureInstance, CdcClient client) {
    LocalDateTime startedAt = Times.nowUtc();
    long t0 = System.nanoTime();
    SnapshotStamp stamp = SnapshotStamp.takeFor(client, captureInstance);
    LOG.info("Snapshot of {} into {} stamped {}: reading the table", captureInstance, target, stamp.lsn());
    io.mssqlcdc.testing.CrashPoints.hit(io.mssqlcdc.testing.CrashPoint.SNAPSHOT_AFTER_STAMP);
    Map<String, String> options = new LinkedHashMap<>(readerOptions);
    options.keySet().removeIf(k -> k.equalsIgnoreCase("snapshotLsn") || k.equalsIgnoreCase("snapshotChunks"));
    options.put("snapshotLsn", stamp.lsn().hex());
    Dataset<Row> rows = spark.read().format("mssql_cdc_snapshot").options(options).load();
    Dataset<Row> bronze = BronzeTable.snapshotRows(rows, stamp.lsn().hex());
    TableRunner.ensure(spark, target, BronzeTable.KIND, BronzeTable.creationSchema(bronze.schema()));
    long before = DeltaTables.version(spark, target);
    String commitTs = stamp.commitTs() == null ? "" : Times.millis(stamp.commitTs());
    String meta = "{\"snapshot\": " + quote(captureInstance) + ", \"lsn\": " + quote(stamp.lsn().hex())
        + ", \"commit_ts\": " + quote(commitTs) + "}";
    DeltaTables.append(bronze, target, Map.of("mergeSchema", "true", "userMetadata", meta));
    long durationMs = (System.nanoTime() - t0) / 1_000_000;
    long written = rowsOfCommit(spark, target, before, meta);
    io.mssqlcdc.testing.CrashPoints.hit(io.mssqlcdc.testing.CrashPoint.SNAPSHOT_AFTER_APPEND);
    LOG.info("Snapshot of {} into {} at {}: {} rows in {} ms", captureInstance, target, stamp.lsn(), written,
        durationMs);
    return new TakenSnapshot(stamp.lsn(), stamp.commitTs(), written, startedAt, durationMs);
  }

  /** A stamp recorded now (for a {@code snapshot_open} row: the snapshot read later stamps at or after it). */
  static TakenSnapshot stampOnly(CdcClient client, String captureInstance) {
    SnapshotStamp stamp = SnapshotStamp.takeFor(client, captureInstance);
    return new TakenSnapshot(stamp.lsn(), stamp.commitTs(), 0L, Times.nowUtc(), null);
  }

  /** {@code numOutputRows} of the commit after {@code before} whose userMetadata is {@code meta}; 0 if none. */
  static long rowsOfCommit(SparkSession spark, TableRef target, long before, String meta) {
    List<Row> commits = DeltaTables.table(spark, target).history()
        .where(col("version").gt(before).and(col("userMetadata").equalTo(meta)))
        .select("operationMetrics").collectAsList();
    if (commits.isEmpty()) {
      return 0;
    }
    scala.collection.Map<String, String> m = commits.get(0).getMap(0);
    return m.get("numOutputRows").map(Long::parseLong).getOrElse(() -> 0L);
  }

  /**
   * The newest whole snapshot of the table in {@code target} (reference-behaviour §12.4):
   * operation-0 rows of the table's capture instances (any case), not of a chunk; its id is
   * {@code coalesce(_snapshot, _start_lsn)}; commit time = the newest {@code _commit_ts} of those
   * rows. Empty when the target does not exist or holds none.
   */
  static Optional<TakenSnapshot> last(SparkSession spark, TableRef target, Set<String> instancesLower,
      boolean includeChunks) {
    if (!DeltaTables.exists(spark, target)) {
      return Optional.empty();
    }
    Dataset<Row> b = DeltaTables.read(spark, target);
    List<String> cols = Arrays.asList(b.columns());
    Column id = cols.contains(CdcColumns.SNAPSHOT)
        ? coalesce(col(CdcColumns.SNAPSHOT), col(CdcColumns.START_LSN)) : col(CdcColumns.START_LSN);
    Column where = col(CdcColumns.OPERATION).equalTo(0)
        .and(lower(col(CdcColumns.CAPTURE_INSTANCE)).isin(instancesLower.toArray()));
    if (!includeChunks && cols.contains(CdcColumns.CHUNK)) {
      where = where.and(col(CdcColumns.CHUNK).isNull());
    }
    Row r = b.where(where).agg(max(id), max(col(CdcColumns.COMMIT_TS))).first();
    if (r.isNullAt(0)) {
      return Optional.empty();
    }
    Instant ts = r.isNullAt(1) ? null : ((LocalDateTime) r.get(1)).toInstant(ZoneOffset.UTC);
    return Optional.of(TakenSnapshot.found(Lsn.parse(r.getString(0)), ts));
  }

  /** The configured name and every instance of its table, lower case (snapshots are matched ignoring case). */
  static Set<String> instancesLower(CdcClient client, String captureInstance) {
    Set<String> s = new LinkedHashSet<>();
    s.add(captureInstance.toLowerCase(Locale.ROOT));
    List<String> names = new ArrayList<>();
    for (CaptureInstance ci : client.captureInstances(captureInstance)) {
      names.add(ci.name().toLowerCase(Locale.ROOT));
    }
    s.addAll(names);
    return s;
  }

  private static String quote(String s) {
    try {
      return new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(s);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
