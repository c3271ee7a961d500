package io.mssqlcdc.connector.stream;

import io.mssqlcdc.client.CaptureInstance;
import io.mssqlcdc.client.CdcClient;
import io.mssqlcdc.client.CdcClients;
import io.mssqlcdc.connector.CdcOffset;
import io.mssqlcdc.errors.CdcErrors;
import io.mssqlcdc.lsn.Lsn;
import io.mssqlcdc.options.CdcReaderOptions;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.SparkContext;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.streaming.MicroBatchStream;
import org.apache.spark.sql.connector.read.streaming.Offset;
import org.apache.spark.sql.connector.read.streaming.ReadLimit;
import org.apache.spark.sql.connector.read.streaming.ReadMaxRows;
import org.apache.spark.sql.connector.read.streaming.ReportsSourceMetrics;
import org.apache.spark.sql.connector.read.streaming.SupportsTriggerAvailableNow;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The micro-batch stream of {@code format("mssql_cdc")}: offsets are commit LSNs
 * ({@link CdcOffset}, inclusive of what was read), every batch is the exact prefix of the
 * commit history between two offsets.
 *
 * <ul>
 *   <li>{@link #initialOffset()}: {@code startingLsn} resolved once and persisted under the
 *       checkpoint ({@link InitialOffsetStore});
 *   <li>{@link #latestOffset(Offset, ReadLimit)}: never past {@code fn_cdc_get_max_lsn} (or the
 *       AvailableNow target), always a {@code lsn_time_mapping} entry, at most
 *       {@code maxCommitsPerBatch} entries ({@link Admission});
 *   <li>{@link #planInputPartitions}: {@link BatchPlanner} on the driver; each range becomes
 *       one {@link CdcInputPartition};
 *   <li>{@link #metrics}: {@code max_lsn}, its commit time, capture lag and pending commits on
 *       the query progress.
 * </ul>
 * One client is kept on the driver. The stream does not retry: transient failures are retried
 * once, per statement, inside the client ({@code SqlCdcClient}'s {@code DriverRetry}: at most 3
 * retries on a new connection, reference §19); what outlives them fails the call.
 */
public final class CdcMicroBatchStream implements MicroBatchStream, SupportsTriggerAvailableNow, ReportsSourceMetrics {
  private static final Logger LOG = LoggerFactory.getLogger(CdcMicroBatchStream.class);
  private static final java.util.regex.Pattern FIXED_OFFSET = java.util.regex.Pattern.compile("^UTC[+-]\\d\\d:\\d\\d$");
  /** {@code pendingCommits} counts up to this many. */
  static final long PENDING_CAP = 100_000;

  private final CdcReaderOptions options;
  private final StructType schema;
  private final InitialOffsetStore initialOffsetStore;
  private final SparkContext sparkContext;
  private final BatchPlanner planner;
  private final Clock clock;
  private final java.util.function.Function<CdcReaderOptions, CdcClient> opener;
  private CdcClient client;
  private String source;
  private CdcReaderOptions executorOptions;
  private Lsn availableNowTarget;
  private Lsn seenMax;
  private CdcOffset reported;
  /** The last batch planned ({@link #plan}), by its offsets. */
  private Lsn lastPlanStart;
  private Lsn lastPlanEnd;
  private BatchPlanner.Plan lastPlan;
  /** Accumulators of the last batches planned, by end LSN (the reader factory carries them). */
  private final Map<Lsn, BatchAccumulators> accumulators = Collections.synchronizedMap(new LinkedHashMap<>());
  private Lsn lastAccStart;
  private String lastAccBatch;
  /** The query this stream registered batch reports under (Spark runs one source instance per query run). */
  private volatile String registeredQuery;
  /** The (source, capture instance) identities of checkpoint offsets this run checked and accepted. */
  private final java.util.Set<String> identitiesChecked = new java.util.HashSet<>();
  /** WARNING lines logged outside planning (the server clock, a rename), for the next batch planned. */
  private final BatchWarnings pendingWarnings = new BatchWarnings();
  /** The driver's capture-health probe (issue 30), every {@code captureHealthIntervalSeconds}. */
  private final CaptureHealthMonitor captureHealth;
  /**
   * Capture-health events not yet in a batch's plan: the next planned batch records them (facts event rows).
   * Only the query's execution thread touches it ({@code latestOffset} adds, the batch's planning drains), as
   * {@link #pendingWarnings}.
   */
  private final List<BatchEvent> pendingEvents = new ArrayList<>();
  private boolean preflighted;

  CdcMicroBatchStream(CdcReaderOptions options, StructType schema, StructType captured, String checkpointLocation,
      Configuration hadoopConf, SparkContext sparkContext, Clock clock) {
    this(options, schema, captured, checkpointLocation, hadoopConf, sparkContext, clock, CdcClients::open);
  }

  /** @param opener how the driver opens its client ({@link CdcClients#open}; tests observe the calls) */
  CdcMicroBatchStream(CdcReaderOptions options, StructType schema, StructType captured, String checkpointLocation,
      Configuration hadoopConf, SparkContext sparkContext, Clock clock,
      java.util.function.Function<CdcReaderOptions, CdcClient> opener) {
    this.opener = opener;
    this.options = options;
    this.schema = schema;
    this.initialOffsetStore = new InitialOffsetStore(checkpointLocation, hadoopConf);
    this.sparkContext = sparkContext;
    int n = options.numPartitions().orElse(sparkContext.defaultParallelism());
    this.planner = new BatchPlanner(options, captured, n, RangeSplitter.minRows(captured.size()));
    this.clock = clock;
    this.captureHealth = new CaptureHealthMonitor(options.captureHealthRules(), options.captureHealthInterval(),
        options.failWhenCaptureStopped(), clock, options.captureInstance());
  }

  private CdcClient client() {
    if (client == null) {
      client = opener.apply(options);
    }
    return client;
  }

  private void dropClient() {
    CdcClient c = client;
    client = null;
    if (c != null) {
      try {
        c.close();
      } catch (RuntimeException e) {
        LOG.debug("mssql_cdc: closing a failed client", e);
      }
    }
  }

  /** {@code schema.table} of the source, the identity offsets carry. */
  private String source() {
    if (source == null) {
      source = instances().get(0).tableIdentity();
    }
    return source;
  }

  private List<CaptureInstance> instances() {
    return client().captureInstances(options.captureInstance());
  }

  @Override
  public Offset initialOffset() {
    return checkIdentity(initialOffsetStore.getOrCreate(
        () -> StartingOffsets.resolve(client(), options.startingLsn(), instances(), source(), options.captureInstance())));
  }

  /**
   * The checkpoint's identity check (issue 8 defect 3): an offset of another table fails, asking
   * for a new checkpoint; the same table renamed since ({@code sp_rename},
   * {@code ALTER SCHEMA ... TRANSFER}), which CDC keeps capturing under the same instance,
   * resumes with a warning. The offset's {@code capture_instance} decides: the checkpoint is
   * this table's when that instance captures the table this query reads (a gone default name
   * resolves to its table's current instances). Offsets without it (the reference's have no
   * {@code source} either, and are not checked) compare {@code source} alone. New offsets name
   * the table as it is now. Checked once per run for each (source, instance) seen: an idle
   * trigger sends no statement for it.
   */
  private CdcOffset checkIdentity(CdcOffset offset) {
    if (offset.source().isEmpty()) {
      return offset;
    }
    String old = offset.source().get();
    String key = old.toLowerCase(java.util.Locale.ROOT) + "|" + offset.captureInstance().orElse("");
    if (identitiesChecked.contains(key)) {
      return offset;
    }
    Optional<String> ci = offset.captureInstance();
    Optional<String> captured = ci.flatMap(this::tableCapturedBy);
    boolean ours = captured.map(t -> t.equalsIgnoreCase(source())).orElse(old.equalsIgnoreCase(source()));
    if (!ours) {
      throw CdcErrors.offsetOfAnotherSource(old, source(), ci.orElse(null), captured.orElse(null));
    }
    if (!old.equalsIgnoreCase(source())) {
      pendingWarnings.warn(LOG, "mssql_cdc: the checkpoint's offsets name table '{}', and its capture instance '{}'"
          + " now captures '{}' (the table was renamed or moved to another schema): resuming; offsets from now on"
          + " name '{}'.", old, ci.orElseThrow(), source(), source());
    }
    identitiesChecked.add(key);
    return offset;
  }

  /** {@code schema.table} that capture instance {@code ci} captures now; empty when it resolves to none. */
  private Optional<String> tableCapturedBy(String ci) {
    if (ci.equalsIgnoreCase(options.captureInstance())) {
      return Optional.of(source());
    }
    try {
      return Optional.of(client().captureInstances(ci).get(0).tableIdentity());
    } catch (io.mssqlcdc.errors.CdcConfigException e) {
      return Optional.empty();
    }
  }

  @Override
  public Offset deserializeOffset(String json) {
    return CdcOffset.fromJson(json);
  }

  /**
   * {@code offset} as a {@link CdcOffset}: Spark hands some calls the offset as its checkpoint's
   * offset log holds it (a {@code SerializedOffset}, e.g. {@link #metrics} for a batch replayed
   * after a restart), so anything else is read back from its JSON.
   */
  private static CdcOffset cdcOffset(Offset offset) {
    return offset instanceof CdcOffset c ? c : CdcOffset.fromJson(offset.json());
  }

  @Override
  public ReadLimit getDefaultReadLimit() {
    OptionalInt n = options.maxCommitsPerBatch();
    return n.isPresent() ? ReadLimit.maxRows(n.getAsInt()) : ReadLimit.allAvailable();
  }

  @Override
  public void prepareForTriggerAvailableNow() {
    availableNowTarget = client().maxLsn().orElse(Lsn.ZERO);
    LOG.info("mssql_cdc: Trigger.AvailableNow reads up to max_lsn {}", availableNowTarget);
  }

  @Override
  public Offset latestOffset() {
    throw new UnsupportedOperationException(
        "format(\"mssql_cdc\") is admission-controlled: Spark calls latestOffset(start, limit)");
  }

  @Override
  public Offset latestOffset(Offset startOffset, ReadLimit limit) {
    CdcOffset start = checkIdentity(cdcOffset(startOffset));
    preflightOnce();
    captureHealth.check(client(), start.commitTs(), w -> pendingWarnings.warn(LOG, "{}", w),
        e -> pendingEvents.add(new BatchEvent(BatchEvent.ofLabel(e.name()), options.captureInstance(), null,
            null, e.detail())));
    Lsn max = client().maxLsn().orElse(Lsn.ZERO);
    if (max.isAfter(start.lsn())) {
      refreshFixedOffsetClock();
    }
    seenMax = max;
    Lsn upper = availableNowTarget != null ? availableNowTarget : max;
    OptionalInt n = limit instanceof ReadMaxRows r
        ? OptionalInt.of((int) Math.min(Integer.MAX_VALUE, r.maxRows())) : OptionalInt.empty();
    Lsn end = Admission.end(client(), start.lsn(), upper, n);
    if (end.equals(start.lsn())) {
      return start;
    }
    CdcOffset next = CdcOffset.of(end, client().commitTime(end).orElse(null), source(), options.captureInstance());
    CdcOffset.checkForward(start, next);
    return next;
  }

  /**
   * The source's preflight at the run's first trigger (issue 30): CDC enabled on the database and capture
   * ever ran, each failing with the T-SQL that fixes it ({@link CdcClient#preflight}). The capture instance's
   * own checks are left to the stream's resolution, which follows a newer instance of the table when the
   * configured one was disabled after it took over.
   */
  private void preflightOnce() {
    if (preflighted) {
      return;
    }
    try {
      client().preflight(options.captureInstance());
    } catch (io.mssqlcdc.errors.CdcConfigException e) {
      if (e.code() != io.mssqlcdc.errors.CdcErrorCode.CAPTURE_INSTANCE_NOT_FOUND) {
        throw e;
      }
    }
    preflighted = true;
  }

  /**
   * The source's latest offset for the query progress: the {@code max_lsn} the last
   * {@code latestOffset} saw, or, before the first (a batch replayed after a restart is planned
   * without one), {@code max_lsn} read now. Null only when the source cannot tell.
   */
  @Override
  public Offset reportLatestOffset() {
    if (reported != null && reported.lsn().equals(seenMax)) {
      return reported; // an idle poll costs no query here
    }
    try {
      if (seenMax == null) {
        seenMax = client().maxLsn().orElse(Lsn.ZERO);
      }
      reported = CdcOffset.of(seenMax, client().commitTime(seenMax).orElse(null), source(), options.captureInstance());
      return reported;
    } catch (RuntimeException e) {
      LOG.warn("mssql_cdc: cannot report the latest offset: {}", e.getMessage());
      return null;
    }
  }

  @Override
  public InputPartition[] planInputPartitions(Offset startOffset, Offset endOffset) {
    CdcOffset start = cdcOffset(startOffset);
    CdcOffset end = cdcOffset(endOffset);
    BatchPlanner.Plan plan = plan(start.lsn(), end.lsn());
    CdcReaderOptions forExecutors = executorOptions();
    BatchAccumulators acc = accumulatorsFor(start, end);
    register(start, end, plan, acc);
    InputPartition[] partitions = new InputPartition[plan.ranges().size()];
    for (int i = 0; i < partitions.length; i++) {
      LsnRange r = plan.ranges().get(i);
      partitions[i] = new CdcInputPartition(r, forExecutors, end.lsn(), r.to().equals(end.lsn()));
    }
    return partitions;
  }

  /**
   * The accumulators of one batch: new for a new batch, the same for every further planning of
   * the same batch (Spark plans a batch's scan again for each new Dataset over it: the sink's
   * emptiness check, Delta's write of the observed batch), so the report the sink reads holds the
   * figures of whichever planning ran the read. A range read more than once counts once
   * ({@link BatchReport}).
   */
  private BatchAccumulators accumulatorsFor(CdcOffset start, CdcOffset end) {
    String batch = sparkContext.getLocalProperty(BatchEvents.BATCH_ID_KEY);
    synchronized (accumulators) {
      BatchAccumulators acc = accumulators.get(end.lsn());
      if (acc != null && start.lsn().equals(lastAccStart) && java.util.Objects.equals(batch, lastAccBatch)) {
        return acc;
      }
      acc = new BatchAccumulators(sparkContext);
      accumulators.remove(end.lsn());
      accumulators.put(end.lsn(), acc);
      while (accumulators.size() > 4) {
        accumulators.remove(accumulators.keySet().iterator().next());
      }
      lastAccStart = start.lsn();
      lastAccBatch = batch;
      return acc;
    }
  }

  /**
   * The batch's plan, made against the source once: Spark copies the scan node while it prepares
   * a batch's physical plan, and every copy asks for the partitions again. Each call registers a
   * report again, over the batch's one set of accumulators ({@link #accumulatorsFor}); only the source queries
   * (DDL, retention, the NTILE split of the change rows) and the event log lines are not repeated.
   */
  private BatchPlanner.Plan plan(Lsn start, Lsn end) {
    if (lastPlan == null || !start.equals(lastPlanStart) || !end.equals(lastPlanEnd)) {
      BatchPlanner.Plan p = planner.plan(client(), start, end);
      if (!pendingWarnings.isEmpty()) {
        BatchWarnings w = new BatchWarnings();
        w.addAll(pendingWarnings.drain());
        w.addAll(p.warnings());
        p = new BatchPlanner.Plan(p.ranges(), p.events(), w.lines());
      }
      if (!pendingEvents.isEmpty()) {
        List<BatchEvent> events = new ArrayList<>(pendingEvents);
        events.addAll(p.events());
        pendingEvents.clear();
        p = new BatchPlanner.Plan(p.ranges(), events, p.warnings());
      }
      lastPlan = p;
      lastPlanStart = start;
      lastPlanEnd = end;
    }
    return lastPlan;
  }

  private void register(CdcOffset start, CdcOffset end, BatchPlanner.Plan plan, BatchAccumulators acc) {
    String queryId = sparkContext.getLocalProperty(BatchEvents.QUERY_ID_KEY);
    String batch = sparkContext.getLocalProperty(BatchEvents.BATCH_ID_KEY);
    if (queryId == null) {
      return;
    }
    long batchId = batch == null ? -1 : Long.parseLong(batch);
    registeredQuery = queryId;
    BatchEvents.register(
        new BatchReport(queryId, batchId, start, end, plan.ranges(), plan.events(), plan.warnings(), acc));
  }

  /**
   * Before SQL Server 2022, {@code sourceTimeZone=auto} can only detect the server's current UTC
   * offset (a fixed {@code UTC±HH:MM} clock), which a daylight-saving change moves. As the
   * reference does (§9), the driver re-reads it (one query on the open connection) before every
   * batch that has new commits (idle polls do not), pins it for that batch's executors, and warns
   * when it moved.
   * Still unsound for commits made before a change and read after it: set sourceTimeZone to the
   * server's Windows zone name instead.
   */
  private void refreshFixedOffsetClock() {
    if (!options.detectsTimeZone() || executorOptions == null
        || !FIXED_OFFSET.matcher(executorOptions.sourceTimeZone()).matches()) {
      return;
    }
    String before = executorOptions.sourceTimeZone();
    String now = client().refreshSourceTimeZone(); // on the open connection
    if (!now.equals(before)) {
      pendingWarnings.warn(LOG, "mssql_cdc: the server's UTC offset moved from {} to {} (a daylight-saving"
          + " change?); commit times from now on convert with {}. SQL Server before 2022 names no time zone: set"
          + " the option sourceTimeZone to the server's Windows zone name (sys.time_zone_info) to convert every"
          + " commit exactly.", before, now, now);
      executorOptions = options.forExecutors(client());
    }
  }

  /** The options executors open clients with: the driver's detected server clock pinned. */
  private CdcReaderOptions executorOptions() {
    if (executorOptions == null) {
      executorOptions = options.forExecutors(client());
    }
    return executorOptions;
  }

  @Override
  public PartitionReaderFactory createReaderFactory() {
    return new CdcPartitionReaderFactory(schema, accumulators);
  }

  @Override
  public Map<String, String> metrics(Optional<Offset> latestConsumedOffset) {
    Map<String, String> m = new LinkedHashMap<>();
    try {
      Lsn max = seenMax != null ? seenMax : client().maxLsn().orElse(Lsn.ZERO);
      m.put("maxLsn", max.toString());
      // the offset reportLatestOffset built for this max_lsn already holds its commit time
      Optional<Instant> maxTs = reported != null && reported.lsn().equals(max) ? reported.commitTs()
          : client().commitTime(max);
      m.put("maxCommitTs", maxTs.map(Instant::toString).orElse(""));
      maxTs.ifPresent(t -> m.put("captureLagSeconds",
          String.format(java.util.Locale.ROOT, "%.3f", Duration.between(t, clock.instant()).toMillis() / 1000.0)));
      latestConsumedOffset.ifPresent(o -> {
        CdcOffset c = cdcOffset(o);
        m.put("consumedLsn", c.lsn().toString());
        m.put("consumedCommitTs", c.commitTs().map(Instant::toString).orElse(""));
        long pending = Admission.pendingCommits(client(), c.lsn(), max, PENDING_CAP);
        m.put("pendingCommits", pending > PENDING_CAP ? PENDING_CAP + "+" : Long.toString(pending));
      });
      m.putAll(captureHealth.metrics());
    } catch (RuntimeException e) {
      // metrics never fail the query
      LOG.warn("mssql_cdc: source metrics unavailable: {}", e.getMessage());
      dropClient();
    }
    return m;
  }

  @Override
  public void commit(Offset end) {
    // nothing to acknowledge: CDC retention is time-based
  }

  @Override
  public void stop() {
    dropClient();
    BatchEvents.terminated(registeredQuery);
  }

  @Override
  public String toString() {
    return "mssql_cdc[" + options.captureInstance() + "]";
  }
}
