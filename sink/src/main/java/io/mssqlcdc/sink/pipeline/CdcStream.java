package io.mssqlcdc.sink.pipeline;

import io.mssqlcdc.client.CdcClient;
import io.mssqlcdc.client.CdcClients;
import io.mssqlcdc.connector.CdcOffset;
import io.mssqlcdc.connector.stream.BatchEvent;
import io.mssqlcdc.errors.CdcErrors;
import io.mssqlcdc.errors.SinkErrors;
import io.mssqlcdc.options.CdcReaderOptions;
import io.mssqlcdc.sink.AppIds;
import io.mssqlcdc.sink.DeltaSink;
import io.mssqlcdc.sink.facts.FactsColumn;
import io.mssqlcdc.sink.facts.FactsWriter;
import io.mssqlcdc.sink.tables.TableRef;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeoutException;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.DataStreamWriter;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.Trigger;
import org.apache.spark.sql.Row;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pipeline entry point: one declaration wires {@code format("mssql_cdc")} to the Delta sink,
 * with a bootstrap snapshot, automatic re-snapshots after CDC retention loss in a new checkpoint
 * generation, a snapshot after a capture-instance switch, and many tables at once
 * (reference-behaviour §3.1, §10.2, §12.3-§12.6, §18; docs/PIPELINE.md).
 *
 * <pre>{@code
 * StreamingQuery q = CdcStream.builder(spark)
 *     .option("connectionString", url).option("captureInstance", "dbo_orders")
 *     .target("bronze.orders").appId("orders").checkpoint("/chk/orders").factsTable("ops.cdc_facts")
 *     .bootstrap(true).onDataLoss("resnapshot")
 *     .trigger("availableNow")
 *     .toDelta();
 * }</pre>
 *
 * <p>Every argument is checked before anything is read or written. From PySpark the builder is
 * reached through the session's JVM gateway; every setter takes plain strings, booleans and
 * numbers.
 */
public final class CdcStream {
  private static final Logger LOG = LoggerFactory.getLogger(CdcStream.class);

  private CdcStream() {}

  /** A builder argument, for the documentation (docs/OPTIONS.md is generated from {@link #ARGUMENTS}). */
  public record Argument(String name, String type, String defaultText, String doc) {}

  /** Every argument of {@link Builder}, in documentation order. */
  public static final List<Argument> ARGUMENTS = List.of(
      new Argument("option / options", "string → string", "none",
          "Reader options of `format(\"mssql_cdc\")` (the table above); `captureInstance` and `connectionString` (or"
              + " `backend=fake` with `fakePath`) are required. Validated when `toDelta()` is called, before anything"
              + " is read or written."),
      new Argument("target", "string", "required",
          "The bronze table: a name (`bronze.orders`) or a path (anything with `/` or `:`). Facts rows carry it"
              + " exactly as given: spell it the same way in every run."),
      new Argument("appId", "string", "required",
          "The stream's identity, stable for the checkpoint's lifetime: bronze appends use it as Delta"
              + " `txnAppId` (`<appId>.g<n>` after n re-snapshots). A new checkpoint needs a new app id. No `#`."),
      new Argument("checkpoint", "string", "required",
          "The Spark checkpoint. Generation n (after n automatic re-snapshots) runs in"
              + " `<checkpoint>/_generations/<n>`; the generation state is `<checkpoint>/_mssql_cdc_generation.json`."
              + " A URI checkpoint (`abfss://`, `dbfs:/`, `file:/`) is always generation 0."),
      new Argument("factsTable", "string", "none",
          "The facts table (name or path): one row per micro-batch and per event. Required by"
              + " `onDataLoss=resnapshot`."),
      new Argument("factsCommitIntervalSeconds", "number", "`0`",
          "How often at most the facts rows of steady micro-batches are committed (docs/decisions/0013): batches"
              + " further apart get a commit each, right after the batch; a stream catching up, one per interval"
              + " for all its batches since. `0`: each commit starts when the one before ended, with every row handed"
              + " over meanwhile (fewer commits with more streams or slower storage). Rows held when the process ends are rebuilt"
              + " from bronze by the next run (figures of the read NULL)."),
      new Argument("trigger", "`Trigger` or string", "Spark's default",
          "`availableNow`, `once`, `processingTime=1 minute`, or a `Trigger`."),
      new Argument("queryName", "string", "the sink id",
          "The query's name; by default `<appId>` (`<appId>.g<n>` in generation n)."),
      new Argument("bootstrap", "boolean", "`false`",
          "Snapshot the table into the target once (operation 0, `_snapshot` = its stamp) and start the stream at"
              + " the stamp. Later starts find the snapshot and read nothing. Not with `startingLsn`."),
      new Argument("onDataLoss", "`fail` or `resnapshot`", "`fail`",
          "What a start does when CDC no longer holds the changes after the checkpoint: fail naming the lost"
              + " range, or take a new snapshot and continue in the next checkpoint generation, recording the gap in"
              + " facts. Needs `factsTable`, a plain-path checkpoint and `failOnDataLoss=true`."),
      new Argument("resnapshotIntervalDays", "number", "`7`",
          "At most one automatic re-snapshot (or failed attempt) per this many days, so a stream that keeps"
              + " falling behind retention fails instead of re-snapshotting in a loop; keep it above the CDC"
              + " retention. `0` re-snapshots now."),
      new Argument("snapshotOnSwitch", "boolean", "`false`",
          "After the batch that first reads a newer capture instance, append a full snapshot so rows that did"
              + " not change carry the instance's new columns."),
      new Argument("snapshot", "`full` or `chunked`", "`full`",
          "How bootstrap and re-snapshots read the table: `full` reads it whole before the stream starts;"
              + " `chunked` opens the snapshot (its stamp S), starts the stream at S at once, and `backfill()` reads"
              + " the table in resumable chunks beside it (docs/PIPELINE.md). Needs `factsTable`."),
      new Argument("attach", "`StreamAttachment`", "none",
          "Something that follows the started query, e.g. `Finalization.tracking(controlTable, \"hour\")`."));

  public static Builder builder(SparkSession spark) {
    return new Builder(spark);
  }

  /** Builds and starts a stream (or several, with {@link #startMany}). */
  public static final class Builder {
    private final SparkSession spark;
    private final Map<String, String> options = new LinkedHashMap<>();
    private String target;
    private String appId;
    private String checkpoint;
    private String facts;
    private Trigger trigger;
    private String queryName;
    private boolean bootstrap;
    private String onDataLoss = "fail";
    private double resnapshotIntervalDays = 7.0;
    private boolean snapshotOnSwitch;
    private java.time.Duration factsCommitInterval = DeltaSink.DEFAULT_FACTS_COMMIT_INTERVAL;
    private String snapshotMode = ModeLock.FULL;
    private final List<StreamAttachment> attachments = new ArrayList<>();

    private Builder(SparkSession spark) {
      this.spark = spark;
    }

    /** A reader option of {@code format("mssql_cdc")} (docs/OPTIONS.md); names any case. */
    public Builder option(String key, String value) {
      options.keySet().removeIf(k -> k.equalsIgnoreCase(key));
      options.put(key, value);
      return this;
    }

    /** Reader options, as {@link #option} one by one. */
    public Builder options(Map<String, String> readerOptions) {
      readerOptions.forEach(this::option);
      return this;
    }

    /** The bronze table: a name, or a path (anything with {@code /} or {@code :}). Required. */
    public Builder target(String nameOrPath) {
      this.target = nameOrPath;
      return this;
    }

    /** The app id: stable for the checkpoint's lifetime; a new checkpoint needs a new one. Required. */
    public Builder appId(String appId) {
      this.appId = appId;
      return this;
    }

    /** The Spark checkpoint; generation n runs in {@code <checkpoint>/_generations/<n>}. Required. */
    public Builder checkpoint(String checkpoint) {
      this.checkpoint = checkpoint;
      return this;
    }

    /** The facts table; required by {@code onDataLoss=resnapshot}. */
    public Builder factsTable(String nameOrPath) {
      this.facts = nameOrPath;
      return this;
    }

    /** The query's trigger (Spark's default, a micro-batch as soon as the last ended, when not set). */
    public Builder trigger(Trigger trigger) {
      this.trigger = trigger;
      return this;
    }

    /** The trigger by name: {@code availableNow}, {@code once}, {@code processingTime=1 minute}. */
    public Builder trigger(String trigger) {
      this.trigger = Triggers.parse(trigger);
      return this;
    }

    /** The query name; default the sink id ({@code <app_id>}, or {@code <app_id>.g<n>}). */
    public Builder queryName(String name) {
      this.queryName = name;
      return this;
    }

    /** Snapshot the table into the target once and start the stream at the snapshot's stamp. */
    public Builder bootstrap(boolean bootstrap) {
      this.bootstrap = bootstrap;
      return this;
    }

    /** {@code fail} (default) or {@code resnapshot}: what a start does when CDC no longer holds the next changes. */
    public Builder onDataLoss(String policy) {
      String p = policy == null ? "" : policy.strip().toLowerCase(Locale.ROOT);
      if (!p.equals("fail") && !p.equals("resnapshot")) {
        throw CdcErrors.invalidOption("onDataLoss", policy, "'fail' or 'resnapshot'", null);
      }
      this.onDataLoss = p;
      return this;
    }

    /**
     * At most one automatic re-snapshot (or failed attempt) per this many days (default 7; keep it
     * above the CDC retention); 0 re-snapshots now.
     */
    public Builder resnapshotIntervalDays(double days) {
      if (!(days >= 0) || Double.isInfinite(days)) {
        throw CdcErrors.invalidOption("resnapshotIntervalDays", Double.toString(days), "a number of days, 0 or more", null);
      }
      this.resnapshotIntervalDays = days;
      return this;
    }

    /** How often at most steady batches' facts rows are committed, in seconds (default 0: as soon as the last commit ended). */
    public Builder factsCommitIntervalSeconds(double seconds) {
      if (!(seconds >= 0) || Double.isInfinite(seconds)) {
        throw CdcErrors.invalidOption("factsCommitIntervalSeconds", Double.toString(seconds),
            "a number of seconds, 0 or more", null);
      }
      this.factsCommitInterval = java.time.Duration.ofNanos(Math.round(seconds * 1e9));
      return this;
    }

    /** After the batch that first reads a newer capture instance, append a full snapshot (rows gain its new columns). */
    public Builder snapshotOnSwitch(boolean snapshotOnSwitch) {
      this.snapshotOnSwitch = snapshotOnSwitch;
      return this;
    }

    /** How bootstrap and re-snapshots read the table: {@code full} (default) or {@code chunked}. */
    public Builder snapshot(String mode) {
      String m = mode == null ? "" : mode.strip().toLowerCase(Locale.ROOT);
      if (!m.equals(ModeLock.FULL) && !m.equals(ModeLock.CHUNKED)) {
        throw CdcErrors.invalidOption("snapshot", mode, "'full' or 'chunked'", null);
      }
      this.snapshotMode = m;
      return this;
    }

    /** Follows the started query, e.g. {@code Finalization.tracking(controlTable, "hour")}. */
    public Builder attach(StreamAttachment attachment) {
      attachments.add(attachment);
      return this;
    }

    /** Starts the stream; returns the running query (non-blocking). */
    public StreamingQuery toDelta() {
      Plan plan = validate(options, target, appId, checkpoint, queryName);
      return start(plan);
    }

    /**
     * A full snapshot of the table into {@code target} (reference-behaviour §12.5): unless
     * {@code resnapshot}, the newest whole snapshot the target holds (else the stamp S of a
     * chunked one) is returned and nothing is read. With a facts table, the "full" mode lock applies (needs {@code appId}). No facts event.
     */
    public CdcOffset snapshot(String target, boolean resnapshot) {
      CdcReaderOptions reader = CdcReaderOptions.parse(options, CdcReaderOptions.Reader.STREAM);
      TableRef t = TableRef.of(require("target", target));
      String ci = reader.captureInstance();
      if (facts != null && appId == null) {
        throw SinkErrors.conflict("snapshot() with a factsTable needs the stream's appId.");
      }
      try (CdcClient client = CdcClients.open(reader)) {
        if (facts != null) {
          ModeLock.check(spark, TableRef.of(facts), t.text(), new AppIds(appId), ModeLock.FULL, client, ci);
        }
        if (!resnapshot) {
          java.util.Set<String> instances = Snapshots.instancesLower(client, ci);
          Optional<TakenSnapshot> last = Snapshots.last(spark, t, instances, false);
          if (last.isPresent()) {
            return CdcOffset.of(last.get().lsn(), last.get().commitTs(), null);
          }
          // else the S of a chunked snapshot in bronze (§12.5): the stream continues from there
          Optional<TakenSnapshot> chunked = Snapshots.last(spark, t, instances, true);
          if (chunked.isPresent()) {
            return CdcOffset.of(chunked.get().lsn(), client.commitTime(chunked.get().lsn()).orElse(null), null);
          }
        }
        TakenSnapshot s = Snapshots.take(spark, withoutStreamStart(options), t, ci, client);
        return CdcOffset.of(s.lsn(), s.commitTs(), null);
      }
    }

    /**
     * The chunked snapshot's reader (docs/PIPELINE.md): {@code backfill().maxWaves(2).run()} reads
     * the next waves of the open chunked snapshot of {@code target} into bronze. Needs
     * {@code target}, {@code appId}, {@code factsTable} and the reader options of the stream.
     */
    public Backfill backfill() {
      CdcReaderOptions reader = CdcReaderOptions.parse(options, CdcReaderOptions.Reader.STREAM);
      if (facts == null) {
        throw SinkErrors.conflict("backfill() needs the stream's factsTable: its event rows hold the snapshot's plan"
            + " and which chunks are in.");
      }
      return new Backfill(spark, withoutStreamStart(options), reader, TableRef.of(require("target", target)),
          TableRef.of(facts), new AppIds(require("appId", appId)));
    }

    /**
     * Seeding bronze from an existing copy of the table (reference-behaviour §12.7):
     * {@code seed(copy).asOf(instant).run()}.
     */
    public Seed seed(org.apache.spark.sql.Dataset<Row> copy) {
      CdcReaderOptions reader = CdcReaderOptions.parse(options, CdcReaderOptions.Reader.STREAM);
      if (facts != null && appId == null) {
        throw SinkErrors.conflict("seed() with a factsTable needs the stream's appId.");
      }
      return new Seed(spark, withoutStreamStart(options), reader, TableRef.of(require("target", target)),
          facts == null ? null : TableRef.of(facts), appId == null ? null : new AppIds(appId), copy);
    }

    /**
     * Starts one stream per capture instance (reference-behaviour §18): {@code target},
     * {@code appId} and {@code checkpoint} (and {@code queryName}, if set) are templates with
     * {@code {ci}}; the other settings are shared. Starts them one after the other (each after its
     * own bootstrap or re-snapshot); if a start fails, the ones started are stopped and the error
     * is raised. Once started, a failing stream does not stop the others. Returns the queries by
     * capture instance, in the given order.
     */
    public Map<String, StreamingQuery> startMany(List<String> captureInstances) {
      Map<String, Map<String, String>> m = new LinkedHashMap<>();
      for (String ci : captureInstances) {
        m.putIfAbsent(ci, Map.of());
      }
      return startMany(m);
    }

    /** As {@link #startMany(List)}, with reader option overrides per capture instance. */
    public Map<String, StreamingQuery> startMany(Map<String, Map<String, String>> captureInstances) {
      Templates.check("target", target);
      Templates.check("appId", appId);
      Templates.check("checkpoint", checkpoint);
      if (queryName != null) {
        Templates.check("queryName", queryName);
      }
      List<Map.Entry<String, Plan>> plans = new ArrayList<>();
      for (Map.Entry<String, Map<String, String>> e : captureInstances.entrySet()) {
        String ci = e.getKey();
        Map<String, String> o = new LinkedHashMap<>(options);
        e.getValue().forEach((k, v) -> {
          o.keySet().removeIf(x -> x.equalsIgnoreCase(k));
          o.put(k, v);
        });
        o.keySet().removeIf(x -> x.equalsIgnoreCase("captureInstance"));
        o.put("captureInstance", ci);
        plans.add(Map.entry(ci, validate(o, Templates.expand("target", require("target", target), ci),
            Templates.expand("appId", require("appId", appId), ci),
            Templates.expand("checkpoint", require("checkpoint", checkpoint), ci),
            queryName == null ? null : Templates.expand("queryName", queryName, ci))));
      }
      if (facts != null) {
        FactsWriter.ensure(spark, TableRef.of(facts));
      }
      Map<String, StreamingQuery> started = new LinkedHashMap<>();
      try {
        for (Map.Entry<String, Plan> p : plans) {
          started.put(p.getKey(), start(p.getValue()));
        }
      } catch (RuntimeException | Error e) {
        CdcStreams.stopAll(started);
        throw e;
      }
      return started;
    }

    /** Everything {@link #start} needs, checked. */
    private record Plan(
        Map<String, String> options, CdcReaderOptions reader, TableRef target, AppIds ids, String checkpoint,
        TableRef facts, String queryName) {}

    private Plan validate(Map<String, String> opts, String target, String appId, String checkpoint, String queryName) {
      CdcReaderOptions reader = CdcReaderOptions.parse(opts, CdcReaderOptions.Reader.STREAM);
      TableRef t = TableRef.of(require("target", target));
      AppIds ids = new AppIds(require("appId", appId));
      require("checkpoint", checkpoint);
      boolean chunked = snapshotMode.equals(ModeLock.CHUNKED);
      if (chunked && facts == null) {
        throw SinkErrors.conflict("snapshot=chunked needs a factsTable: its event rows hold the snapshot's plan and"
            + " which chunks are in.");
      }
      if (snapshotOnSwitch && chunked) {
        throw SinkErrors.conflict("snapshotOnSwitch=true reads the whole table inside the stream's batch, which"
            + " snapshot=chunked exists to avoid: use one or the other.");
      }
      if (onDataLoss.equals("resnapshot")) {
        if (CheckpointDir.isUnfitForRecovery(checkpoint)) {
          throw SinkErrors.conflict("onDataLoss=resnapshot keeps its generation state next to the checkpoint: use a"
              + " plain path (local, HDFS or /Volumes/...), not a URI or /dbfs/..., for checkpoint '" + checkpoint
              + "'.");
        }
        if (facts == null) {
          throw SinkErrors.conflict("onDataLoss=resnapshot needs a factsTable: its event rows tell downstream to"
              + " rebuild, and from which LSN.");
        }
        if (!reader.failOnDataLoss()) {
          throw SinkErrors.conflict("onDataLoss=resnapshot needs failOnDataLoss true, not '"
              + opt(opts, "failOnDataLoss") + "': a purge while the query runs would be skipped past, and the next"
              + " run's check could no longer see the gap.");
        }
      }
      String starting = opt(opts, "startingLsn");
      if (bootstrap && starting != null && !starting.isEmpty()) {
        throw SinkErrors.conflict("bootstrap=true sets startingLsn itself; pass one or the other (not startingLsn='"
            + starting + "').");
      }
      TableRef f = facts == null ? null : TableRef.of(facts);
      if (f != null && f.equals(t)) {
        throw SinkErrors.conflict("factsTable '" + facts + "' is the target: the facts go to a table of their own.");
      }
      return new Plan(Map.copyOf(opts), reader, t, ids, checkpoint, f, queryName);
    }

    private StreamingQuery start(Plan p) {
      String ci = p.reader().captureInstance();
      CheckpointDir dir = CheckpointDir.of(spark, p.checkpoint());
      Map<String, String> streamOptions = new LinkedHashMap<>(p.options());
      GenerationState state;
      try (CdcClient client = CdcClients.open(p.reader())) {
        if (p.facts() != null && (bootstrap || onDataLoss.equals("resnapshot"))) {
          ModeLock.check(spark, p.facts(), p.target().text(), p.ids(), snapshotMode, client, ci);
        }
        state = dir.readState();
        if (onDataLoss.equals("resnapshot")) {
          state = new Recovery(spark, dir, p.ids(), p.target(), p.facts(), withoutStreamStart(p.options()), ci, client)
              .run(state, bootstrap, p.reader().startingLsn(), resnapshotIntervalDays,
                  snapshotMode.equals(ModeLock.CHUNKED));
        }
        if (state.generation() > 0) {
          setStart(streamOptions, state.snapshotLsn().hex());
        } else if (bootstrap) {
          TakenSnapshot s = new Bootstrap(spark, p.ids(), p.target(), p.facts(), withoutStreamStart(p.options()), ci,
              client, snapshotMode.equals(ModeLock.CHUNKED), dir.hasOffsets(0)).run();
          setStart(streamOptions, s.lsn().hex());
        }
      }
      int g = state.generation();
      String sinkId = p.ids().sinkId(g);
      DeltaSink.Builder sb = DeltaSink.builder().generation(g).target(p.target().text()).appId(p.ids().base())
          .factsCommitInterval(factsCommitInterval);
      if (p.facts() != null) {
        sb.factsTable(p.facts().text());
      }
      if (snapshotOnSwitch) {
        Map<String, String> snapshotOptions = withoutStreamStart(p.options());
        sb.afterBatch((s, batchId, events) -> snapshotAfterSwitch(s, snapshotOptions, p, ci, events));
      }
      DeltaSink sink = sb.build();
      String name = p.queryName() == null || p.queryName().isEmpty() ? sinkId : p.queryName();
      DataStreamWriter<Row> w = spark.readStream().format("mssql_cdc").options(streamOptions).load().writeStream()
          .foreachBatch(sink)
          .option("checkpointLocation", dir.generation(g))
          .queryName(name);
      if (trigger != null) {
        w = w.trigger(trigger);
      }
      StreamingQuery q;
      try {
        q = w.start();
      } catch (TimeoutException e) {
        throw new IllegalStateException("Spark did not start the query " + name + ": " + e.getMessage(), e);
      }
      LOG.info("Started {} ({} -> {}, generation {}, checkpoint {})", name, ci, p.target(), g, dir.generation(g));
      StartedStream started = new StartedStream(p.target().text(), p.ids().base(), sinkId, g, ci,
          Optional.ofNullable(p.facts()).map(TableRef::text));
      for (StreamAttachment a : attachments) {
        a.attach(spark, q, started);
      }
      return q;
    }

    private static void snapshotAfterSwitch(SparkSession s, Map<String, String> snapshotOptions, Plan p, String ci,
        List<BatchEvent> events) {
      if (events.stream().noneMatch(e -> e.kind() == BatchEvent.Kind.CAPTURE_INSTANCE_SWITCHED)) {
        return;
      }
      LOG.info("{}: the batch read a newer capture instance; snapshotting the table so unchanged rows carry its"
          + " columns (snapshotOnSwitch)", p.target());
      try (CdcClient client = CdcClients.open(p.reader())) {
        Snapshots.take(s, snapshotOptions, p.target(), ci, client);
      }
    }

    private static void setStart(Map<String, String> opts, String lsn) {
      opts.keySet().removeIf(k -> k.equalsIgnoreCase("startingLsn"));
      opts.put("startingLsn", lsn);
    }

    private static String opt(Map<String, String> opts, String key) {
      for (Map.Entry<String, String> e : opts.entrySet()) {
        if (e.getKey().equalsIgnoreCase(key)) {
          return e.getValue();
        }
      }
      return null;
    }

    private static String require(String name, String value) {
      if (value == null || value.isBlank()) {
        throw CdcErrors.missingOption(name, switch (name) {
          case "target" -> "'bronze.orders' or '/lake/bronze/orders'";
          case "appId" -> "'orders-bronze', stable for the checkpoint's lifetime";
          case "checkpoint" -> "'/checkpoints/orders'";
          default -> null;
        });
      }
      return value;
    }
  }

  /** The reader options for a snapshot read: without the stream's starting position. */
  static Map<String, String> withoutStreamStart(Map<String, String> options) {
    Map<String, String> o = new LinkedHashMap<>(options);
    o.keySet().removeIf(k -> k.equalsIgnoreCase("startingLsn"));
    return o;
  }

  /** Bootstrap (reference-behaviour §12.6, with §33's corrections). */
  private record Bootstrap(SparkSession spark, AppIds ids, TableRef target, TableRef facts,
      Map<String, String> readerOptions, String captureInstance, CdcClient client, boolean chunked,
      boolean resuming) {

    TakenSnapshot run() {
      Optional<TakenSnapshot> existing = Snapshots.last(spark, target,
          Snapshots.instancesLower(client, captureInstance), false);
      if (existing.isEmpty()) {
        existing = emptyBootstrap();
      }
      TakenSnapshot s;
      if (existing.isPresent()) {
        s = existing.get();
        LOG.info("{} holds a snapshot at {}: bootstrap starts the stream there", target, s.lsn());
      } else if (facts != null && reusableOpen().isPresent()) {
        // A chunked snapshot of generation 0 (open, or complete: its rows are chunk rows): the stream starts at its S;
        // backfill() writes the bootstrap row when its last chunk is in.
        io.mssqlcdc.sink.chunked.ChunkedOpen o = reusableOpen().get();
        LOG.info("{} has a chunked snapshot opened at {}: the stream starts there", target, o.s());
        return new TakenSnapshot(o.s(), o.commitTs(), null, null, null);
      } else if (chunked) {
        io.mssqlcdc.sink.chunked.ChunkedOpen o = io.mssqlcdc.sink.chunked.ChunkedSnapshots.open(spark, facts,
            target.text(), ids, 0, SnapshotEvents.BOOTSTRAP, null, null, client, captureInstance);
        return new TakenSnapshot(o.s(), o.commitTs(), null, null, null);
      } else {
        if (facts != null) {
          TakenSnapshot open = Snapshots.stampOnly(client, captureInstance);
          FactsWriter.ensure(spark, facts);
          FactsWriter.write(spark, facts, List.of(SnapshotEvents.event(ids.sinkId(0), SnapshotEvents.OPEN, open, null,
              null, SnapshotEvents.openDetail(ModeLock.FULL, SnapshotEvents.BOOTSTRAP, 0, null, null), target.text())),
              null, 0);
        }
        s = Snapshots.take(spark, readerOptions, target, captureInstance, client);
      }
      if (facts != null) {
        SnapshotEvents.writeBootstrap(spark, facts, ids, SnapshotEvents.event(ids.sinkId(0), SnapshotEvents.BOOTSTRAP,
            s, null, null, null, target.text()));
      }
      return s;
    }

    /**
     * A bootstrap of a table empty at its stamp: it left no operation-0 row in bronze, only its facts event (rows 0).
     * Found there, it is not taken again (issue 29's crash suite, seed 1019: a second snapshot of generation 0 at every
     * start until the table had rows). Like a snapshot in bronze, whose rows are matched by the capture instances of
     * the stream's lineage, the event must belong to that lineage: its stamp at or after the earliest {@code start_lsn}
     * of the table's instances (a facts row names no instance; an instance that took the stamp was live then, and
     * every instance live since is in the list). An empty bootstrap of an instance dropped before them is stale: the
     * table may have changed while no instance captured it. Of several, the latest, as {@link Snapshots#last} takes.
     *
     * <p>Unless the stream resumes: when generation 0's checkpoint already has offsets, Spark continues from them
     * and ignores the starting LSN, so the event it started from is this one whatever instances exist now (the
     * source's own retention check guards what lies between). Issue 29's crash suite, seed 7177: the stream read
     * past a newer instance's start, the older instance was dropped, and the next start took a second bootstrap.
     */
    private Optional<TakenSnapshot> emptyBootstrap() {
      if (facts == null || !io.mssqlcdc.sink.tables.DeltaTables.exists(spark, facts)) {
        return Optional.empty();
      }
      List<Row> rows = io.mssqlcdc.sink.facts.FactsReader.events(spark, facts, target.text(), SnapshotEvents.BOOTSTRAP)
          .where(org.apache.spark.sql.functions.col(FactsColumn.APP_ID.column()).equalTo(ids.sinkId(0))
              .and(org.apache.spark.sql.functions.col(FactsColumn.ROWS.column()).equalTo(0L)))
          .select(FactsColumn.MAX_LSN.column(), FactsColumn.MAX_COMMIT_TS.column()).collectAsList();
      Optional<io.mssqlcdc.lsn.Lsn> lineageStart = client.captureInstances(captureInstance).stream()
          .map(io.mssqlcdc.client.CaptureInstance::startLsn).filter(java.util.Objects::nonNull)
          .min(java.util.Comparator.naturalOrder());
      Row best = null;
      io.mssqlcdc.lsn.Lsn bestLsn = null;
      for (Row r : rows) {
        io.mssqlcdc.lsn.Lsn lsn = io.mssqlcdc.lsn.Lsn.parse(r.getString(0));
        if (!resuming && lineageStart.isPresent() && lsn.compareTo(lineageStart.get()) < 0) {
          LOG.info("{}: the empty bootstrap at {} is older than the capture instances of {} (from {}): not reused",
              target, lsn, captureInstance, lineageStart.get());
          continue;
        }
        if (bestLsn == null || lsn.compareTo(bestLsn) > 0) {
          best = r;
          bestLsn = lsn;
        }
      }
      if (best == null) {
        return Optional.empty();
      }
      java.time.Instant ts = best.isNullAt(1) ? null
          : ((java.time.LocalDateTime) best.get(1)).toInstant(java.time.ZoneOffset.UTC);
      return Optional.of(TakenSnapshot.found(bestLsn, ts));
    }

    private Optional<io.mssqlcdc.sink.chunked.ChunkedOpen> reusableOpen() {
      if (!io.mssqlcdc.sink.tables.DeltaTables.exists(spark, facts)) {
        return Optional.empty();
      }
      return io.mssqlcdc.sink.chunked.ChunkedFacts.read(spark, facts, target.text(), ids).openOf(0);
    }
  }
}
