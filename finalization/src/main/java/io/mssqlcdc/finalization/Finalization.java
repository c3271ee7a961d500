package io.mssqlcdc.finalization;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.mssqlcdc.connector.CdcOffset;
import io.mssqlcdc.errors.FinalizationErrors;
import io.mssqlcdc.sink.tables.TableRef;
import java.time.LocalDateTime;
import java.time.temporal.Temporal;
import java.util.Optional;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.SourceProgress;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryProgress;

/**
 * Finalization: {@code finalized_until}, the completeness signal downstream jobs gate on
 * (reference-behaviour §15; docs/FINALIZATION.md).
 *
 * <p>With CDC, "the partition has data" does not mean "the partition is complete". A stream's end
 * offset carries the SQL Server commit time of the last commit it has committed to its target,
 * and capture writes changes in commit order; so once a batch is committed, every source commit
 * before the period holding that time is in the target. The verdict, per table, lives in a
 * control table (one row per table) and only moves forward:
 * <pre>{@code
 * StreamingQuery q = changes.writeStream().foreachBatch(sink).option("checkpointLocation", ckpt).start();
 * FinalizationTracker t = Finalization.track(spark, q, "ops.table_finalization", "bronze.orders", "hour");
 * // elsewhere, before reading [start, end) of bronze.orders:
 * if (Finalization.isFinal(spark, "ops.table_finalization", "bronze.orders", end)) { ... }
 * }</pre>
 *
 * <p>Every method is static and takes plain strings and {@code java.time} values, so PySpark calls
 * it through the gateway:
 * {@code spark._jvm.io.mssqlcdc.finalization.Finalization.isFinal(spark._jsparkSession, control,
 * table, "2026-03-01T10:00:00+02:00")}. Tables are Delta tables given by name or path. Times are
 * UTC wall-clock times ({@code TIMESTAMP_NTZ}); inputs with an offset or a zone are converted.
 * Granularity is {@code minute}, {@code hour} (the default) or {@code day}.
 */
public final class Finalization {
  /** The granularity when none is given, as in the Python reference. */
  public static final String DEFAULT_GRANULARITY = "hour";

  private static final ObjectMapper JSON = new ObjectMapper();

  private Finalization() {}

  // ---- the control table ------------------------------------------------------------------

  /** Creates the control table (name or path) at the latest schema version, or migrates it. */
  public static void ensureControlTable(SparkSession spark, String controlTable) {
    VerdictStore.ensure(session(spark), control(controlTable));
  }

  // ---- the verdict ------------------------------------------------------------------------

  /**
   * Moves {@code tableName}'s verdict forward to what a committed batch ending at
   * {@code endOffset} implies: its commit time truncated to {@code granularity}. A verdict is
   * never moved backwards, also with concurrent writers (the MERGE only updates an older or NULL
   * verdict, and is retried when it loses a race with another commit for up to a minute). Call it
   * only after the batch that produced {@code endOffset} is committed to the table: the verdict
   * must never run ahead of the data. Creates or migrates the control table first.
   *
   * @param endOffset the committed batch's end offset; null or without a commit time: nothing
   *     moves
   * @return the table's verdict after the call (possibly later than this offset's, when another
   *     writer moved it further); empty when it has none
   */
  public static Optional<LocalDateTime> advance(
      SparkSession spark, String controlTable, String tableName, CdcOffset endOffset, String granularity) {
    Granularity g = Granularity.parse(granularity);
    return advance(session(spark), control(controlTable), table(tableName), endOffset, g);
  }

  /** {@link #advance(SparkSession, String, String, CdcOffset, String)} at {@code hour} granularity. */
  public static Optional<LocalDateTime> advance(
      SparkSession spark, String controlTable, String tableName, CdcOffset endOffset) {
    return advance(spark, controlTable, tableName, endOffset, DEFAULT_GRANULARITY);
  }

  static Optional<LocalDateTime> advance(
      SparkSession spark, TableRef control, String tableName, CdcOffset endOffset, Granularity granularity) {
    Optional<LocalDateTime> cand = Verdicts.candidate(endOffset, granularity);
    VerdictStore.ensureOnce(spark, control);
    try {
      Optional<LocalDateTime> stored = VerdictStore.read(spark, control, tableName);
      if (cand.isEmpty() || (stored.isPresent() && !cand.get().isAfter(stored.get()))) {
        return stored; // nothing to move: no MERGE, no commit on the table every writer shares
      }
      if (VerdictStore.moveForward(spark, control, tableName, cand.get(), endOffset)) {
        return cand;
      }
      return VerdictStore.read(spark, control, tableName); // another writer got further meanwhile
    } catch (RuntimeException e) {
      VerdictStore.forget(spark, control); // the next call ensures the table again
      throw e;
    }
  }

  /**
   * {@code tableName}'s verdict: every period ending at or before it is complete. Empty when the
   * table has no verdict yet.
   *
   * @throws io.mssqlcdc.errors.CdcStateException when the control table does not exist
   */
  public static Optional<LocalDateTime> finalizedUntil(SparkSession spark, String controlTable, String tableName) {
    return VerdictStore.read(session(spark), control(controlTable), table(tableName));
  }

  /**
   * Whether the period ending at {@code periodEnd} (exclusive) is complete in {@code tableName}:
   * exactly when {@code periodEnd <= finalized_until}. A consumer of {@code [start, end)} waits
   * until this is true for {@code end}.
   *
   * @param periodEnd an {@code Instant}, {@code OffsetDateTime} or {@code ZonedDateTime}
   *     (converted to UTC), a {@code LocalDateTime} (UTC) or a {@code LocalDate} (its midnight, UTC)
   * @throws io.mssqlcdc.errors.CdcStateException when the control table does not exist
   */
  public static boolean isFinal(SparkSession spark, String controlTable, String tableName, Temporal periodEnd) {
    LocalDateTime end = PeriodEnds.toUtc(periodEnd);
    return Verdicts.isFinal(finalizedUntil(spark, controlTable, tableName), end);
  }

  /**
   * {@link #isFinal(SparkSession, String, String, Temporal)} with {@code periodEnd} as ISO-8601
   * text: with an offset or zone ({@code 2026-03-01T12:00:00+02:00}, {@code ...Z},
   * {@code ...+01:00[Europe/Paris]}: converted to UTC), without ({@code 2026-03-01T10:00:00}: UTC),
   * or a date ({@code 2026-03-01}: its midnight, UTC). From PySpark: {@code period_end.isoformat()}.
   */
  public static boolean isFinal(SparkSession spark, String controlTable, String tableName, String periodEnd) {
    LocalDateTime end = PeriodEnds.toUtc(periodEnd);
    return Verdicts.isFinal(finalizedUntil(spark, controlTable, tableName), end);
  }

  /**
   * The verdict a committed batch ending at {@code endOffset} implies: its commit time truncated
   * to {@code granularity}; empty without an offset or a commit time. The period holding the end
   * commit is excluded: other transactions may share that exact commit time.
   */
  public static Optional<LocalDateTime> candidate(CdcOffset endOffset, String granularity) {
    return Verdicts.candidate(endOffset, Granularity.parse(granularity));
  }

  // ---- progress ---------------------------------------------------------------------------

  /** The end offset of the query's first source in {@code progress}; empty when it has none. */
  public static Optional<CdcOffset> endOffsetFromProgress(StreamingQueryProgress progress) {
    return endOffsetFromProgress(progress, 0);
  }

  /**
   * The end offset of source {@code sourceIndex} (the {@code format("mssql_cdc")} source's position
   * in the query) in {@code progress}; empty when the progress is null, has no such source, or the
   * source has no end offset yet.
   *
   * @throws io.mssqlcdc.errors.CdcConfigException when that source's end offset is not an
   *     {@code mssql_cdc} offset
   */
  public static Optional<CdcOffset> endOffsetFromProgress(StreamingQueryProgress progress, int sourceIndex) {
    checkIndex(sourceIndex);
    if (progress == null || progress.sources() == null || progress.sources().length <= sourceIndex) {
      return Optional.empty();
    }
    SourceProgress s = progress.sources()[sourceIndex];
    return offset(sourceIndex, s.description(), s.endOffset());
  }

  /**
   * The end offset of the first source in a progress's JSON ({@code progress.json()}; in PySpark
   * {@code query.lastProgress.json}, or pass the JVM object {@code query._jsq.lastProgress()}).
   */
  public static Optional<CdcOffset> endOffsetFromProgress(String progressJson) {
    return endOffsetFromProgress(progressJson, 0);
  }

  /**
   * {@link #endOffsetFromProgress(StreamingQueryProgress, int)} from a progress's JSON; the end
   * offset may be embedded as JSON or as a string holding it.
   *
   * @throws io.mssqlcdc.errors.CdcConfigException when the text is not a progress's JSON, or the
   *     source's end offset is not an {@code mssql_cdc} offset
   */
  public static Optional<CdcOffset> endOffsetFromProgress(String progressJson, int sourceIndex) {
    checkIndex(sourceIndex);
    if (progressJson == null || progressJson.isBlank()) {
      return Optional.empty();
    }
    JsonNode root;
    try {
      root = JSON.readTree(progressJson);
    } catch (Exception e) {
      throw FinalizationErrors.invalidProgress(progressJson, "it is not JSON");
    }
    if (root == null || !root.isObject()) {
      throw FinalizationErrors.invalidProgress(progressJson, "it is not a JSON object");
    }
    JsonNode sources = root.get("sources");
    if (sources == null || sources.isNull()) {
      return Optional.empty();
    }
    if (!sources.isArray()) {
      throw FinalizationErrors.invalidProgress(progressJson, "'sources' is not a list");
    }
    if (sources.size() <= sourceIndex) {
      return Optional.empty();
    }
    JsonNode s = sources.get(sourceIndex);
    JsonNode end = s.get("endOffset");
    String description = s.hasNonNull("description") ? s.get("description").asText() : "no description";
    if (end == null || end.isNull()) {
      return Optional.empty();
    }
    return offset(sourceIndex, description, end.isTextual() ? end.asText() : end.toString());
  }

  private static Optional<CdcOffset> offset(int sourceIndex, String description, String json) {
    if (json == null || json.isBlank() || json.strip().equals("null")) {
      return Optional.empty();
    }
    JsonNode n;
    try {
      n = JSON.readTree(json);
    } catch (Exception e) {
      throw FinalizationErrors.notACdcOffset(sourceIndex, description, json, "it is not JSON", e);
    }
    if (n == null || !n.isObject() || !n.path("lsn").isTextual()) {
      throw FinalizationErrors.notACdcOffset(sourceIndex, description, json, "it has no 'lsn'", null);
    }
    try {
      return Optional.of(CdcOffset.fromJson(json));
    } catch (RuntimeException e) {
      throw FinalizationErrors.notACdcOffset(sourceIndex, description, json,
          "its 'lsn' or 'commit_ts' cannot be read", e);
    }
  }

  // ---- tracking a stream ------------------------------------------------------------------

  /**
   * Advances {@code tableName}'s verdict after every batch of {@code query}, a started streaming
   * query that writes the table from a {@code format("mssql_cdc")} source (its first source),
   * until the query terminates. Call it right after starting the query. Works with any trigger:
   * for a processing-time query it keeps up while the query runs; for {@code AvailableNow}, call
   * {@code query.awaitTermination()} then {@link FinalizationTracker#join}, which waits for the
   * last verdict. The control table is created (or migrated) here, so a wrong name fails now
   * rather than in the tracker's log.
   */
  public static FinalizationTracker track(
      SparkSession spark, StreamingQuery query, String controlTable, String tableName, String granularity) {
    Granularity g = Granularity.parse(granularity);
    SparkSession s = session(spark);
    TableRef control = control(controlTable);
    String table = table(tableName);
    if (query == null) {
      throw FinalizationErrors.invalidArgument("query", null, "a started StreamingQuery (the stream writing "
          + table + ")");
    }
    VerdictStore.ensure(s, control);
    return new FinalizationTracker(s, query, control, table, g).start();
  }

  /** {@link #track(SparkSession, StreamingQuery, String, String, String)} at {@code hour} granularity. */
  public static FinalizationTracker track(
      SparkSession spark, StreamingQuery query, String controlTable, String tableName) {
    return track(spark, query, controlTable, tableName, DEFAULT_GRANULARITY);
  }

  /**
   * What {@code CdcStream} attaches to each stream it starts to track it: a {@link #track} of the
   * stream's target in {@code controlTable}. Arguments are checked here, when the pipeline is
   * configured.
   */
  public static TrackingAttachment tracking(String controlTable, String granularity) {
    return new TrackingAttachment(control(controlTable), Granularity.parse(granularity));
  }

  /** {@link #tracking(String, String)} at {@code hour} granularity. */
  public static TrackingAttachment tracking(String controlTable) {
    return tracking(controlTable, DEFAULT_GRANULARITY);
  }

  // ---- arguments --------------------------------------------------------------------------

  private static SparkSession session(SparkSession spark) {
    if (spark == null) {
      throw FinalizationErrors.invalidArgument("spark", null, "the SparkSession (in PySpark spark._jsparkSession)");
    }
    return spark;
  }

  static TableRef control(String controlTable) {
    if (controlTable == null || controlTable.isBlank()) {
      throw FinalizationErrors.invalidArgument("controlTable", controlTable,
          "the Delta table (name or path) that holds the verdicts, e.g. ops.table_finalization");
    }
    return TableRef.of(controlTable);
  }

  private static String table(String tableName) {
    if (tableName == null || tableName.isBlank()) {
      throw FinalizationErrors.invalidArgument("tableName", tableName,
          "the table the verdict is about, usually the stream's target (e.g. bronze.orders), spelled the same way"
              + " by every writer and reader");
    }
    return tableName;
  }

  private static void checkIndex(int sourceIndex) {
    if (sourceIndex < 0) {
      throw FinalizationErrors.invalidArgument("sourceIndex", Integer.toString(sourceIndex),
          "the position of the mssql_cdc source in the query, 0 or more");
    }
  }
}
