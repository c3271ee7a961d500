package io.mssqlcdc.sink.pipeline;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.max;

import io.mssqlcdc.client.CdcClient;
import io.mssqlcdc.client.CdcClients;
import io.mssqlcdc.connector.CdcColumns;
import io.mssqlcdc.connector.CdcOffset;
import io.mssqlcdc.errors.CdcErrors;
import io.mssqlcdc.errors.SinkErrors;
import io.mssqlcdc.lsn.Lsn;
import io.mssqlcdc.options.CdcReaderOptions;
import io.mssqlcdc.sink.AppIds;
import io.mssqlcdc.sink.BronzeTable;
import io.mssqlcdc.sink.facts.FactsWriter;
import io.mssqlcdc.sink.tables.DeltaTables;
import io.mssqlcdc.sink.tables.TableRef;
import io.mssqlcdc.sink.tables.TableRunner;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Seeds bronze from a copy of the table that already exists (reference-behaviour §12.7, ADR 0025):
 * a nightly export, a restored backup, another system's extract. The copy is appended as a
 * snapshot (operation 0) stamped with the LSN the copy was taken at (given, or the last commit at
 * or before the copy's time), so the stream started from that LSN ({@code bootstrap(true)} finds
 * the seed) completes it with every change since. Nothing is read from SQL Server but metadata.
 */
public final class Seed {
  private static final Logger LOG = LoggerFactory.getLogger(Seed.class);

  /** Every argument of a seed call, in documentation order (docs/OPTIONS.md is generated from it). */
  public static final List<CdcStream.Argument> ARGUMENTS = List.of(
      new CdcStream.Argument("asOf", "`Instant` or ISO-8601 text", "required (or `asOfLsn`)",
          "When the copy started (UTC; text without an offset is UTC): the seed is stamped with the last commit at"
              + " or before it (`sys.fn_cdc_map_time_to_lsn`)."),
      new CdcStream.Argument("asOfLsn", "LSN text", "required (or `asOf`)",
          "The LSN recorded with `sys.fn_cdc_get_max_lsn()` before the copy was taken (the exact way)."),
      new CdcStream.Argument("allowMissingColumns", "boolean", "`false`",
          "Seed captured columns the copy lacks as NULL instead of failing (`MSSQL_CDC-152`)."),
      new CdcStream.Argument("reseed", "boolean", "`false`",
          "Allow a seed over an older snapshot in the target (the copy must be newer than it)."));

  private final SparkSession spark;
  private final Map<String, String> readerOptions;
  private final CdcReaderOptions reader;
  private final TableRef target;
  private final TableRef facts;
  private final AppIds ids;
  private final Dataset<Row> copy;
  private Instant asOf;
  private Lsn asOfLsn;
  private boolean allowMissingColumns;
  private boolean reseed;

  Seed(SparkSession spark, Map<String, String> readerOptions, CdcReaderOptions reader, TableRef target, TableRef facts,
      AppIds ids, Dataset<Row> copy) {
    this.spark = spark;
    this.readerOptions = readerOptions;
    this.reader = reader;
    this.target = target;
    this.facts = facts;
    this.ids = ids;
    this.copy = copy;
  }

  /** When the copy started, UTC; the seed is stamped with the last commit at or before it. */
  public Seed asOf(Instant copyStartedAt) {
    this.asOf = copyStartedAt;
    this.asOfLsn = null;
    return this;
  }

  /** When the copy started, as ISO-8601 text with an offset ({@code 2026-11-30T02:00:00Z}); no offset means UTC. */
  public Seed asOf(String copyStartedAt) {
    try {
      return asOf(OffsetDateTime.parse(copyStartedAt).toInstant());
    } catch (java.time.format.DateTimeParseException e) {
      try {
        return asOf(LocalDateTime.parse(copyStartedAt).toInstant(ZoneOffset.UTC));
      } catch (java.time.format.DateTimeParseException e2) {
        throw CdcErrors.invalidOption("asOf", copyStartedAt, "an ISO-8601 time such as 2026-11-30T02:00:00Z", null);
      }
    }
  }

  /** The LSN recorded (with {@code sys.fn_cdc_get_max_lsn()}) before the copy was taken. */
  public Seed asOfLsn(String lsn) {
    this.asOfLsn = Lsn.parse(lsn);
    this.asOf = null;
    return this;
  }

  /** Seed captured columns the copy lacks as NULL instead of failing. */
  public Seed allowMissingColumns(boolean allow) {
    this.allowMissingColumns = allow;
    return this;
  }

  /** Allow a seed over an older snapshot in the target (the copy must be newer). */
  public Seed reseed(boolean reseed) {
    this.reseed = reseed;
    return this;
  }

  /** Appends the copy; returns the seed's offset (its LSN and commit time). */
  public CdcOffset run() {
    if (asOf == null && asOfLsn == null) {
      throw CdcErrors.missingOption("asOf", "the time the copy started, or asOfLsn: the LSN recorded before it");
    }
    String ci = reader.captureInstance();
    LocalDateTime startedAt = Times.nowUtc();
    long t0 = System.nanoTime();
    try (CdcClient client = CdcClients.open(reader)) {
      if (facts != null) {
        ModeLock.check(spark, facts, target.text(), ids, null, client, ci);
      }
      StructType schema = spark.read().format("mssql_cdc_snapshot").options(readerOptions).load().schema();
      List<StructField> captured = new ArrayList<>();
      for (StructField f : schema.fields()) {
        if (!CdcColumns.isReserved(f.name())) {
          captured.add(f);
        }
      }
      Map<String, String> copyColumns = new HashMap<>();
      for (String c : copy.columns()) {
        copyColumns.putIfAbsent(c.toLowerCase(Locale.ROOT), c);
      }
      // Computed columns read NULL in every CDC row (a snapshot's and a seed's too), whatever the copy holds.
      java.util.Set<String> computed = new java.util.HashSet<>();
      for (io.mssqlcdc.client.CaptureInstance inst : client.captureInstances(ci)) {
        for (io.mssqlcdc.client.CapturedColumn c : client.capturedColumns(inst.name())) {
          if (c.computed()) {
            computed.add(c.name().toLowerCase(Locale.ROOT));
          }
        }
      }
      List<String> missing = captured.stream().map(StructField::name)
          .filter(n -> !computed.contains(n.toLowerCase(Locale.ROOT)))
          .filter(n -> !copyColumns.containsKey(n.toLowerCase(Locale.ROOT))).toList();
      if (!missing.isEmpty() && !allowMissingColumns) {
        throw SinkErrors.seedMissingColumns(missing, ci);
      }
      java.util.Set<String> instances = Snapshots.instancesLower(client, ci);
      Lsn l;
      if (asOfLsn != null) {
        l = asOfLsn;
      } else {
        Optional<Lsn> at = client.lsnAtOrBefore(asOf);
        if (at.isEmpty()) {
          if (!reseed) {
            Optional<TakenSnapshot> rerun = newestWholeAtOrBefore(instances, asOf);
            if (rerun.isPresent()) {
              return done(rerun.get(), null);
            }
          }
          throw SinkErrors.seedNoCommitAtOrBefore(ci, Times.millis(asOf));
        }
        l = at.get();
      }
      Optional<TakenSnapshot> same = wholeAt(instances, l);
      if (same.isPresent()) {
        LOG.info("{} already holds the seed at {}: nothing to append", target, l);
        return done(same.get(), null);
      }
      Optional<TakenSnapshot> any = Snapshots.last(spark, target, instances, true);
      if (any.isPresent() && (!reseed || !l.isAfter(any.get().lsn()))) {
        throw SinkErrors.seedTargetHoldsSnapshot(target.text(), ci, any.get().lsn().hex(), l.hex());
      }
      Optional<Lsn> maxLsn = client.maxLsn();
      if (maxLsn.isEmpty() || l.isAfter(maxLsn.get())) {
        throw SinkErrors.seedAfterMaxLsn(l.hex());
      }
      Optional<RetentionCheck.Loss> loss = RetentionCheck.after(client, ci, l);
      if (loss.isPresent()) {
        throw SinkErrors.seedPurged(ci, l.hex(), loss.get().low().hex());
      }
      Instant commitTs = client.commitTime(l).orElse(null);
      List<Column> cols = new ArrayList<>();
      for (StructField f : schema.fields()) {
        Column c = switch (f.name()) {
          case CdcColumns.CAPTURE_INSTANCE -> lit(ci);
          case CdcColumns.START_LSN -> lit(l.hex());
          case CdcColumns.OPERATION -> lit(0);
          case CdcColumns.COMMIT_TS -> commitTs == null ? lit(null) : lit(LocalDateTime.ofInstant(commitTs, ZoneOffset.UTC));
          case CdcColumns.SEQVAL, CdcColumns.COMMAND_ID, CdcColumns.CHUNK -> lit(null);
          default -> !computed.contains(f.name().toLowerCase(Locale.ROOT))
              && copyColumns.containsKey(f.name().toLowerCase(Locale.ROOT))
              ? copy.col(quote(copyColumns.get(f.name().toLowerCase(Locale.ROOT)))) : lit(null);
        };
        cols.add(c.cast(f.dataType()).as(f.name()));
      }
      Dataset<Row> rows = BronzeTable.snapshotRows(copy.select(cols.toArray(Column[]::new)), l.hex());
      TableRunner.ensure(spark, target, BronzeTable.KIND, BronzeTable.creationSchema(rows.schema()));
      long before = DeltaTables.version(spark, target);
      String meta = "{\"seed\": " + Json.quote(ci) + ", \"lsn\": " + Json.quote(l.hex()) + ", \"commit_ts\": "
          + Json.quote(commitTs == null ? "" : Times.millis(commitTs)) + "}"; // "" when unknown, as snapshots
      DeltaTables.append(rows, target, Map.of("mergeSchema", "true", "userMetadata", meta));
      long written = Snapshots.rowsOfCommit(spark, target, before, meta);
      LOG.info("Seeded {} with {} rows of a copy of {} at {}", target, written, ci, l);
      return done(new TakenSnapshot(l, commitTs, written, startedAt, (System.nanoTime() - t0) / 1_000_000), commitTs);
    }
  }

  /** Writes the bootstrap row (once: a rerun's is skipped) and returns the offset. */
  private CdcOffset done(TakenSnapshot s, Instant ignored) {
    if (facts != null) {
      SnapshotEvents.writeBootstrap(spark, facts, ids, SnapshotEvents.event(ids.sinkId(0), SnapshotEvents.BOOTSTRAP,
          s, null, null, null, target.text()));
    }
    return CdcOffset.of(s.lsn(), s.commitTs(), null);
  }

  private Optional<TakenSnapshot> wholeAt(java.util.Set<String> instances, Lsn l) {
    return Snapshots.last(spark, target, instances, false).filter(s -> s.lsn().equals(l))
        .or(() -> wholeWhere(instances, col(CdcColumns.START_LSN).equalTo(l.hex())));
  }

  private Optional<TakenSnapshot> newestWholeAtOrBefore(java.util.Set<String> instances, Instant t) {
    return wholeWhere(instances, col(CdcColumns.COMMIT_TS).leq(lit(LocalDateTime.ofInstant(t, ZoneOffset.UTC))));
  }

  private Optional<TakenSnapshot> wholeWhere(java.util.Set<String> instances, Column extra) {
    if (!DeltaTables.exists(spark, target)) {
      return Optional.empty();
    }
    Dataset<Row> b = DeltaTables.read(spark, target);
    Column where = col(CdcColumns.OPERATION).equalTo(0)
        .and(org.apache.spark.sql.functions.lower(col(CdcColumns.CAPTURE_INSTANCE)).isin(instances.toArray()))
        .and(extra);
    if (Arrays.asList(b.columns()).contains(CdcColumns.CHUNK)) {
      where = where.and(col(CdcColumns.CHUNK).isNull());
    }
    Row r = b.where(where).agg(max(col(CdcColumns.START_LSN)), max(col(CdcColumns.COMMIT_TS))).first();
    if (r.isNullAt(0)) {
      return Optional.empty();
    }
    Instant ts = r.isNullAt(1) ? null : ((LocalDateTime) r.get(1)).toInstant(ZoneOffset.UTC);
    return Optional.of(TakenSnapshot.found(Lsn.parse(r.getString(0)), ts));
  }

  private static String quote(String name) {
    return "`" + name.replace("`", "``") + "`";
  }

  /** JSON string quoting. */
  private static final class Json {
    static String quote(String s) {
      try {
        return new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(s);
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }
  }
}
