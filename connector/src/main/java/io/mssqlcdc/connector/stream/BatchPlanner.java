package io.mssqlcdc.connector.stream;

import io.mssqlcdc.client.CaptureInstance;
import io.mssqlcdc.client.CapturedColumn;
import io.mssqlcdc.client.CdcClient;
import io.mssqlcdc.client.DdlEvent;
import io.mssqlcdc.errors.CdcConfigException;
import io.mssqlcdc.errors.CdcErrors;
import io.mssqlcdc.lsn.Lsn;
import io.mssqlcdc.options.CdcReaderOptions;
import io.mssqlcdc.types.TypeMapping;
import io.mssqlcdc.types.TypeWidening;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Plans one micro-batch on the driver (reference-behaviour §6): the closed range
 * {@code [increment(start), end]} is cut at newer capture instances' start LSNs, DDL inside the
 * batch is classified before anything is read, the retention guard runs on every piece, and
 * pieces are split into commit-aligned ranges of about equal rows. Replays plan the same ranges:
 * everything is derived from the two offsets and the source's metadata.
 *
 * <p>State kept across batches of one run: the instance names seen (so a configured instance
 * disabled after a newer one took over is still followed, and named in data-loss errors), the
 * query's expected types, and the instances whose columns were checked.
 */
final class BatchPlanner {
  private static final Logger LOG = LoggerFactory.getLogger(BatchPlanner.class);

  /**
   * The ranges to read, the events to report and the WARNING lines logged, for one batch.
   *
   * @param warnings the lines logged at WARN while planning, first-seen order, no repeats
   */
  record Plan(List<LsnRange> ranges, List<BatchEvent> events, List<String> warnings) {
    Plan {
      ranges = List.copyOf(ranges);
      events = List.copyOf(events);
      warnings = List.copyOf(warnings);
    }
  }

  private final CdcReaderOptions options;
  private final StructType captured;
  private final int numPartitions;
  private final long minRows;
  private final boolean declared;
  private final List<String> names = new ArrayList<>();
  private final Set<String> checked = new HashSet<>();
  private Map<String, DataType> expected;

  /**
   * @param captured the query's captured columns (the schema after the metadata columns)
   * @param numPartitions most ranges per piece
   */
  BatchPlanner(CdcReaderOptions options, StructType captured, int numPartitions, long minRows) {
    this.options = options;
    this.captured = captured;
    this.numPartitions = numPartitions;
    this.minRows = minRows;
    this.declared = options.columns().isPresent();
    names.add(options.captureInstance());
  }

  Plan plan(CdcClient client, Lsn start, Lsn end) {
    if (!end.isAfter(start)) {
      return new Plan(List.of(), List.of(), List.of());
    }
    BatchWarnings warnings = new BatchWarnings();
    List<CaptureInstance> instances = instances(client);
    List<String> gone = gone(instances);
    if (expected == null) {
      expected = expectedTypes(client, instances, warnings);
      checked.add(instances.get(0).name());
    }
    List<LsnRange> pieces = RangeCutter.cut(instances, client.incrementLsn(start), end, client::decrementLsn);
    List<BatchEvent> events = new ArrayList<>(classifyDdl(client, pieces, start, end));
    events.addAll(switches(client, instances, pieces));
    List<LsnRange> ranges = new ArrayList<>();
    for (LsnRange piece : pieces) {
      boolean oldest = piece.captureInstance().equals(instances.get(0).name());
      RetentionGuard.Outcome o = RetentionGuard.beforeRead(client, piece, client.minLsn(piece.captureInstance()),
          options.failOnDataLoss(), oldest ? gone : List.of());
      o.skipped().ifPresent(events::add);
      o.warning().ifPresent(w -> warnings.addAll(List.of(w)));
      if (o.range().isEmpty()) {
        continue;
      }
      LsnRange r = o.range().get();
      checkSwitch(client, instance(instances, r.captureInstance()), warnings);
      ranges.addAll(split(client, r));
    }
    for (BatchEvent e : events) {
      warnings.warn(LOG, "mssql_cdc: {}", e);
    }
    return new Plan(ranges, events, warnings.lines());
  }

  private List<LsnRange> split(CdcClient client, LsnRange piece) {
    if (numPartitions <= 1) {
      return List.of(piece);
    }
    return RangeSplitter.split(piece,
        client.splitPoints(piece.captureInstance(), piece.from(), piece.to(), numPartitions), numPartitions, minRows);
  }

  /**
   * The table's instances, looked up by the newest name seen first, then by older ones: the
   * newest may have been replaced and disabled since the last batch, while the configured
   * default name {@code <schema>_<table>} still resolves to the table's current instances.
   */
  private List<CaptureInstance> instances(CdcClient client) {
    List<CaptureInstance> found = null;
    CdcConfigException notFound = null;
    for (int i = names.size() - 1; i >= 0 && found == null; i--) {
      try {
        found = client.captureInstances(names.get(i));
      } catch (CdcConfigException e) {
        notFound = notFound == null ? e : notFound;
      }
    }
    if (found == null) {
      throw notFound;
    }
    for (CaptureInstance ci : found) {
      if (names.stream().noneMatch(ci::isNamed)) {
        names.add(ci.name());
      }
    }
    return found;
  }

  private List<String> gone(List<CaptureInstance> instances) {
    List<String> gone = new ArrayList<>();
    for (String n : names) {
      if (instances.stream().noneMatch(ci -> ci.isNamed(n))) {
        gone.add(n);
      }
    }
    return gone;
  }

  private Map<String, DataType> expectedTypes(
      CdcClient client, List<CaptureInstance> instances, BatchWarnings warnings) {
    Map<String, DataType> types = new LinkedHashMap<>();
    if (!declared) {
      for (StructField f : captured.fields()) {
        types.put(f.name().toLowerCase(Locale.ROOT), f.dataType());
      }
      warnComputedLeftOut(client, instances, warnings);
      return types;
    }
    // declared types are the user's conversions: a batch fails on the captured types' change
    Set<String> wanted = wanted();
    List<String> missing = new ArrayList<>(wanted);
    for (CaptureInstance ci : instances) {
      for (CapturedColumn c : client.capturedColumns(ci.name())) {
        String key = c.name().toLowerCase(Locale.ROOT);
        missing.remove(key);
        if (wanted.contains(key) && !c.computed()) {
          TypeMapping.sparkType(c.type()).ifPresent(t -> types.put(key, DataType.fromDDL(t)));
        } else if (wanted.contains(key)) {
          warnings.warn(LOG, "mssql_cdc: column '{}' listed in 'columns' is computed: CDC stores NULL for it in"
              + " every change row.", c.name());
        }
      }
    }
    if (!missing.isEmpty()) {
      throw CdcErrors.columnsNotCaptured(instances.stream().map(CaptureInstance::name).toList(), missing);
    }
    return types;
  }

  /**
   * The run's first batch of an inferred schema repeats the warning of {@code load()} for the
   * computed columns left out (SchemaInference), so the batch's warnings hold it.
   */
  private void warnComputedLeftOut(CdcClient client, List<CaptureInstance> instances, BatchWarnings warnings) {
    Set<String> inSchema = wanted();
    List<String> computed = new ArrayList<>();
    for (CaptureInstance ci : instances) {
      for (CapturedColumn c : client.capturedColumns(ci.name())) {
        if (c.computed() && !inSchema.contains(c.name().toLowerCase(Locale.ROOT)) && !computed.contains(c.name())) {
          computed.add(c.name());
        }
      }
    }
    if (!computed.isEmpty()) {
      warnings.warn(LOG, "mssql_cdc: computed column(s) {} left out of the schema: CDC stores NULL for them in every"
          + " change row. Compute them downstream from the columns they are computed from.", computed);
    }
  }

  private Set<String> wanted() {
    Set<String> w = new HashSet<>();
    for (StructField f : captured.fields()) {
      w.add(f.name().toLowerCase(Locale.ROOT));
    }
    return w;
  }

  private List<BatchEvent> classifyDdl(CdcClient client, List<LsnRange> pieces, Lsn start, Lsn end) {
    List<DdlEvent> ddl = new ArrayList<>();
    for (String ci : used(pieces)) {
      ddl.addAll(client.ddlHistory(ci, start, end));
    }
    return SchemaChangeClassifier.classify(ddl, options.schemaChangePolicy(), expected, client::capturedColumns,
        declared);
  }

  private static List<String> used(List<LsnRange> pieces) {
    List<String> used = new ArrayList<>();
    for (LsnRange p : pieces) {
      if (!used.contains(p.captureInstance())) {
        used.add(p.captureInstance());
      }
    }
    return used;
  }

  /**
   * A {@code capture_instance_switched} event for each piece that starts exactly at its
   * instance's start S while an older instance is listed: after a piece of the older one, or as
   * the batch's first piece (a batch whose start offset is {@code decrement(S)}).
   */
  private List<BatchEvent> switches(CdcClient client, List<CaptureInstance> instances, List<LsnRange> pieces) {
    List<BatchEvent> events = new ArrayList<>();
    for (LsnRange piece : pieces) {
      int at = instances.indexOf(instance(instances, piece.captureInstance()));
      if (at == 0) {
        continue;
      }
      CaptureInstance older = instances.get(at - 1);
      CaptureInstance newer = instances.get(at);
      Lsn s = newer.startLsn();
      if (s == null || !piece.from().equals(s)) {
        continue;
      }
      List<String> lost = notInNewer(client, older, newer);
      String detail = older.name() + " -> " + newer.name()
          + (lost.isEmpty() ? "" : "; no longer captured, read as NULL: " + String.join(", ", lost));
      events.add(new BatchEvent(BatchEvent.Kind.CAPTURE_INSTANCE_SWITCHED, newer.name(), s,
          client.commitTime(s).orElse(null), detail));
    }
    return events;
  }

  private List<String> notInNewer(CdcClient client, CaptureInstance older, CaptureInstance newer) {
    Set<String> inNewer = new HashSet<>();
    for (CapturedColumn c : client.capturedColumns(newer.name())) {
      inNewer.add(c.name().toLowerCase(Locale.ROOT));
    }
    Set<String> wanted = wanted();
    List<String> lost = new ArrayList<>();
    for (CapturedColumn c : client.capturedColumns(older.name())) {
      String key = c.name().toLowerCase(Locale.ROOT);
      if (wanted.contains(key) && !inNewer.contains(key)) {
        lost.add(c.name());
      }
    }
    return lost;
  }

  /** On the run's first read of an instance: does the query's schema hold its columns? */
  private void checkSwitch(CdcClient client, CaptureInstance ci, BatchWarnings warnings) {
    if (!checked.add(ci.name())) {
      return;
    }
    List<String> added = new ArrayList<>();
    List<String> other = new ArrayList<>();
    for (CapturedColumn c : client.capturedColumns(ci.name())) {
      if (c.computed()) {
        continue;
      }
      DataType want = expected.get(c.name().toLowerCase(Locale.ROOT));
      String now = TypeMapping.sparkType(c.type()).orElse(c.type().declaration());
      if (want == null) {
        added.add(c.name() + " " + now);
      } else if (!TypeWidening.fits(now, want.sql())) {
        other.add(c.name() + " " + now + " (read as " + want.sql().toLowerCase(Locale.ROOT) + ")");
      }
    }
    if (declared) {
      if (!added.isEmpty()) {
        warnings.warn(LOG, "mssql_cdc: capture instance '{}' captures {}, which 'columns' does not list: not read.",
            ci.name(), added);
      }
      return;
    }
    if (!added.isEmpty() || !other.isEmpty()) {
      throw CdcErrors.newInstanceDoesNotFit(ci.name(), String.valueOf(ci.startLsn()), added, other);
    }
  }

  private static CaptureInstance instance(List<CaptureInstance> instances, String name) {
    for (CaptureInstance ci : instances) {
      if (ci.name().equals(name)) {
        return ci;
      }
    }
    throw new IllegalStateException("capture instance " + name + " not in " + instances);
  }
}
