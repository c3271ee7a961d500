package io.mssqlcdc.reconcile;

import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.concat_ws;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.expr;
import static org.apache.spark.sql.functions.get_json_object;
import static org.apache.spark.sql.functions.length;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.max;
import static org.apache.spark.sql.functions.min;
import static org.apache.spark.sql.functions.not;
import static org.apache.spark.sql.functions.sha2;
import static org.apache.spark.sql.functions.struct;
import static org.apache.spark.sql.functions.sum;
import static org.apache.spark.sql.functions.to_json;
import static org.apache.spark.sql.functions.when;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mssqlcdc.client.CdcClient;
import io.mssqlcdc.client.CdcClients;
import io.mssqlcdc.client.KeyBucket;
import io.mssqlcdc.client.KeyRange;
import io.mssqlcdc.client.SourceTable;
import io.mssqlcdc.connector.CdcColumns;
import io.mssqlcdc.errors.CdcConfigException;
import io.mssqlcdc.errors.ReconcileErrors;
import io.mssqlcdc.finalization.ControlTable;
import io.mssqlcdc.lsn.Lsn;
import io.mssqlcdc.options.CdcReaderOptions;
import io.mssqlcdc.sink.facts.FactsColumn;
import io.mssqlcdc.sink.tables.DeltaTables;
import io.mssqlcdc.sink.tables.TableRef;
import io.mssqlcdc.sink.tables.TableRunner;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Consumer;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** One run of {@link Reconcile} (reference-behaviour §17, §33 point 7; docs/RECONCILE.md). */
final class ReconcileRun {
  private static final Logger LOG = LoggerFactory.getLogger(Reconcile.class);
  private static final JsonNodeFactory F = JsonNodeFactory.instance;
  private static final String SNAPSHOT_FORMAT = "mssql_cdc_snapshot";
  private static final Map<String, String> KEEP_NULLS = Map.of("ignoreNullFields", "false");
  /** The bounds of the bucket of rows whose key is NULL: the JSON null, as text. */
  static final String NULL_KEY = "null";

  /** The key mode: one integer or date column (buckets), or anything else (whole-table count). */
  enum Kind { INT, DATE, WHOLE }

  private final SparkSession spark;
  private final Map<String, String> rawOptions;
  private final CdcReaderOptions reader;
  private final TableRef silverRef;
  private final String silverName;
  private final TableRef bronzeRef;
  private final String bronzeName;
  private final TableRef controlRef;
  private final TableRef factsRef;
  private final TableRef reportRef;
  private final List<String> givenKeys;
  private final long bucketRows;
  private final double sample;
  private final long seed;
  private final Consumer<Reconcile.Step> steps;

  // set by run()
  private String runId;
  private LocalDateTime runAt;
  private long silverVersion;
  private String silverLsn;
  private List<StructField> captured;
  private List<String> keys;
  private List<DataType> keyTypes;
  private Kind kind;
  private StructType silverSchema;
  private StructType bronzeSchema;
  private InFlightKeys inFlight;
  private final Sampling sampling;

  ReconcileRun(SparkSession spark, Map<String, String> rawOptions, CdcReaderOptions reader, TableRef silverRef,
      String silverName, TableRef bronzeRef, String bronzeName, TableRef controlRef, TableRef factsRef,
      TableRef reportRef, List<String> keys, long bucketRows, double sample, long seed,
      Consumer<Reconcile.Step> steps) {
    this.spark = spark;
    this.rawOptions = rawOptions;
    this.reader = reader;
    this.silverRef = silverRef;
    this.silverName = silverName;
    this.bronzeRef = bronzeRef;
    this.bronzeName = bronzeName;
    this.controlRef = controlRef;
    this.factsRef = factsRef;
    this.reportRef = reportRef;
    this.givenKeys = keys;
    this.bucketRows = bucketRows;
    this.sample = sample;
    this.seed = seed;
    this.steps = steps;
    this.sampling = new Sampling(sample, seed);
  }

  ReconcileResult run() {
    runId = UUID.randomUUID().toString();
    runAt = LocalDateTime.now(ZoneOffset.UTC).truncatedTo(ChronoUnit.MICROS);
    require("silver", silverRef, "run ApplyChanges first (reconcile never creates silver).");
    require("controlTable", controlRef, "silver's position is read from it (ApplyChanges creates it).");
    require("bronze", bronzeRef, "pass the stream's target (reconcile never creates bronze).");
    try (CdcClient client = CdcClients.open(reader)) {
      SourceTable source = client.sourceTable(reader.captureInstance());
      resolveColumns(client, source);
      inFlight = new InFlightKeys(spark, bronzeRef, bronzeSchema, reader, keys, keyTypes);
      // §17 step 4: silver's position before its version
      silverLsn = appliedLsn();
      silverVersion = DeltaTables.version(spark, silverRef);
      Dataset<Row> silver = DeltaTables.readVersion(spark, silverRef, silverVersion);
      steps.accept(Reconcile.Step.SILVER_PINNED);
      Lsn e = silverLsn == null ? Lsn.ZERO : Lsn.parse(silverLsn);
      Lsn m = client.maxLsn().orElse(Lsn.ZERO);
      Lsn lower = Lsn.min(m, e);
      List<Row> report = new ArrayList<>();
      Dataset<Row> keyRows;
      int[] counts;
      if (kind == Kind.WHOLE) {
        Tier t = wholeTable(client, source, silver, m, lower, report);
        keyRows = t.keyRows;
        counts = t.counts;
      } else {
        Tier t = buckets(client, source, silver, m, lower, report);
        keyRows = t.keyRows;
        counts = t.counts;
      }
      if (factsRef != null) {
        report.addAll(chunkRows());
      }
      StructType schema = ReportTable.schema();
      Dataset<Row> rows = spark.createDataFrame(report, schema);
      if (keyRows != null) {
        rows = rows.unionByName(keyRows);
      }
      rows = rows.localCheckpoint();
      Map<String, Long> failures = new TreeMap<>();
      for (Row r : rows.where(col("failure_type").isNotNull()).groupBy("failure_type").count().collectAsList()) {
        failures.put(r.getString(0), r.getLong(1));
      }
      if (reportRef != null) {
        TableRunner.ensure(spark, reportRef, ReportTable.KIND, schema);
        DeltaTables.append(rows, reportRef, Map.of());
      }
      ReconcileResult result = new ReconcileResult(runId, silverVersion, java.util.Optional.ofNullable(silverLsn),
          m.hex(), counts[0], counts[1], counts[2], counts[3], counts[4], failures, rows);
      if (result.clean()) {
        LOG.info("{}", result.summary());
      } else {
        LOG.warn("{} (see docs/RECONCILE.md for what each status means)", result.summary());
      }
      return result;
    }
  }

  /** The tier results: key rows (or null) and counts {buckets, match, in flight, mismatch, hashed}. */
  private record Tier(Dataset<Row> keyRows, int[] counts) {}

  // ---- columns and position ----------------------------------------------------------------

  private void require(String argument, TableRef ref, String what) {
    if (!DeltaTables.exists(spark, ref)) {
      throw ReconcileErrors.tableMissing(argument, ref.text(), what);
    }
  }

  /** Captured columns (the snapshot schema without metadata), keys (spelled as there), their types, the mode. */
  private void resolveColumns(CdcClient client, SourceTable source) {
    StructType schema = spark.read().format(SNAPSHOT_FORMAT).options(rawOptions).load().schema();
    Set<String> meta = new HashSet<>();
    CdcColumns.metadataFields(true).forEach(f -> meta.add(f.name().toLowerCase(Locale.ROOT)));
    for (String c : List.of(CdcColumns.CHUNK, CdcColumns.BATCH_ID, CdcColumns.SNAPSHOT)) {
      meta.add(c.toLowerCase(Locale.ROOT));
    }
    captured = Arrays.stream(schema.fields()).filter(f -> !meta.contains(f.name().toLowerCase(Locale.ROOT))).toList();
    List<String> names = captured.stream().map(StructField::name).toList();
    List<String> k = givenKeys;
    if (k == null) {
      k = source.keyColumns();
      if (k.isEmpty()) {
        throw ReconcileErrors.noUniqueIndex(reader.captureInstance());
      }
    }
    List<String> missing = new ArrayList<>();
    keys = new ArrayList<>();
    keyTypes = new ArrayList<>();
    for (String key : k) {
      StructField f = find(captured, key);
      if (f == null) {
        missing.add(key);
      } else {
        keys.add(f.name());
        keyTypes.add(f.dataType());
      }
    }
    if (!missing.isEmpty()) {
      throw ReconcileErrors.keysNotColumns(missing, "the source's snapshot schema (" + reader.captureInstance() + ")",
          names);
    }
    silverSchema = DeltaTables.schema(spark, silverRef);
    List<String> notInSilver = new ArrayList<>();
    for (String key : keys) {
      if (find(List.of(silverSchema.fields()), key) == null) {
        notInSilver.add(key);
      }
    }
    if (find(List.of(silverSchema.fields()), CdcColumns.START_LSN) == null) {
      notInSilver.add(CdcColumns.START_LSN);
    }
    if (!notInSilver.isEmpty()) {
      throw ReconcileErrors.notASilverTable(silverName, notInSilver);
    }
    bronzeSchema = DeltaTables.schema(spark, bronzeRef);
    for (String c : List.of(CdcColumns.OPERATION, CdcColumns.START_LSN)) {
      if (find(List.of(bronzeSchema.fields()), c) == null) {
        throw ReconcileErrors.conflict("bronze " + bronzeName + " is not a bronze table written by the stream: it has"
            + " no column " + c + ".");
      }
    }
    DataType t = keyTypes.get(0);
    if (keys.size() == 1 && (t instanceof ByteType || t instanceof ShortType || t instanceof IntegerType
        || t instanceof LongType)) {
      kind = Kind.INT;
    } else if (keys.size() == 1 && t instanceof DateType) {
      kind = Kind.DATE;
    } else {
      kind = Kind.WHOLE;
    }
  }

  static StructField find(List<StructField> fields, String name) {
    for (StructField f : fields) {
      if (f.name().equals(name)) {
        return f;
      }
    }
    for (StructField f : fields) {
      if (f.name().equalsIgnoreCase(name)) {
        return f;
      }
    }
    return null;
  }

  static StructField find(StructType s, String name) {
    return find(List.of(s.fields()), name);
  }

  static Column c(String name) {
    return col(DeltaTables.quote(name));
  }

  /** Silver's {@code applied_lsn} from the control table; null when it has none. */
  private String appliedLsn() {
    List<Row> r = DeltaTables.read(spark, controlRef).where(col(ControlTable.TABLE_NAME).equalTo(silverName))
        .select(ControlTable.APPLIED_LSN).collectAsList();
    return r.isEmpty() || r.get(0).isNullAt(0) ? null : r.get(0).getString(0);
  }

  // ---- tier 1 and 2 by buckets (one integer or date key) ----------------------------------------

  /** The SQL of the ordinal of key column {@code name}: the integer, or the days since 1970-01-01. */
  private String ordinalSql(String name) {
    String q = DeltaTables.quote(name);
    return kind == Kind.DATE ? "CAST(DATEDIFF(" + q + ", DATE'1970-01-01') AS BIGINT)" : "CAST(" + q + " AS BIGINT)";
  }

  private long ordinal(Object v) {
    if (v instanceof LocalDate d) {
      return d.toEpochDay();
    }
    return ((Number) v).longValue();
  }

  private Tier buckets(CdcClient client, SourceTable source, Dataset<Row> silver, Lsn m, Lsn lower, List<Row> report) {
    String key = keys.get(0);
    String silverKey = find(silverSchema, key).name();
    String o = ordinalSql(silverKey);
    java.util.Optional<List<Object>> srcExtent = client.keyMinMax(source.table(), key, KeyRange.ALL);
    Row ext = silver.agg(min(expr(o)), max(expr(o))).first();
    List<Long> ends = new ArrayList<>();
    srcExtent.ifPresent(x -> x.forEach(v -> ends.add(ordinal(v))));
    if (!ext.isNullAt(0)) {
      ends.add(ext.getLong(0));
      ends.add(ext.getLong(1));
    }
    List<BucketPlan.Bucket> buckets = List.of();
    long w = 1;
    // rows whose key is NULL: left out of the buckets on both sides, counted as a bucket of their own
    long sourceTotal;
    long silverNulls;
    long sourceInBuckets = 0;
    boolean nullMoved;
    if (!ends.isEmpty()) {
      w = BucketPlan.width(Collections.min(ends), Collections.max(ends));
    }
    List<KeyBucket> src = ends.isEmpty() ? List.of() : client.keyBuckets(source.table(), key, w, KeyRange.ALL);
    sourceTotal = client.countRows(source.table());
    String fine = fineSql(o, w);
    List<KeyBucket> sil = new ArrayList<>();
    silverNulls = 0;
    for (Row r : silver.groupBy(expr(fine).as("b")).agg(count(lit(1)), sum(expr(o).cast("decimal(38,0)")))
        .collectAsList()) {
      if (r.isNullAt(0)) {
        silverNulls = r.getLong(1);
      } else {
        sil.add(new KeyBucket(r.getLong(0), r.getLong(1), r.getDecimal(2).toBigIntegerExact()));
      }
    }
    for (KeyBucket kb : src) {
      sourceInBuckets += kb.rows();
    }
    long sourceNulls = sourceTotal - sourceInBuckets;
    steps.accept(Reconcile.Step.SOURCE_COUNTED);
    // pin bronze after the count: keys it changed after the lower LSN, or that the change table holds
    // beyond bronze's position, are in flight
    Dataset<Row> bronze = inFlight.pinnedBronze();
    String bronzeO = ordinalSql(find(bronzeSchema, key).name());
    Set<Long> moved = new HashSet<>();
    boolean anyMoved = false;
    nullMoved = false;
    for (Row r : inFlight.changedInBronze(bronze, lower).select(expr(fineSql(bronzeO, w))).distinct().collectAsList()) {
      anyMoved = true;
      if (r.isNullAt(0)) {
        nullMoved = true;
      } else {
        moved.add(r.getLong(0));
      }
    }
    Lsn position = inFlight.bronzePosition(bronze, lower);
    for (List<Object> k : inFlight.unread(client, position)) {
      anyMoved = true;
      if (k.get(0) == null) {
        nullMoved = true;
      } else {
        moved.add(BucketPlan.fine(ordinal(k.get(0)), w));
      }
    }
    // the NULL count is the whole-table count less the buckets': a row written between the two
    // statements shows there, so any change in flight makes it IN_FLIGHT rather than MISMATCH
    nullMoved = nullMoved || anyMoved;
    buckets = BucketPlan.merge(src, sil, moved, w, bucketRows);
    boolean nullBucket = sourceNulls != 0 || silverNulls != 0;
    Status nullStatus = Status.of(sourceNulls, null, silverNulls, null, nullMoved);
    // tier 2: every MISMATCH bucket and a seeded sample of the MATCH ones
    List<Integer> mismatched = new ArrayList<>();
    List<Integer> matched = new ArrayList<>();
    for (int i = 0; i < buckets.size(); i++) {
      Status s = buckets.get(i).status();
      if (s == Status.MISMATCH) {
        mismatched.add(i);
      } else if (s == Status.MATCH) {
        matched.add(i);
      }
    }
    List<Integer> chosen = new ArrayList<>(mismatched);
    chosen.addAll(sampling.sampled(matched));
    Collections.sort(chosen);
    boolean nullChosen = nullBucket && nullStatus == Status.MISMATCH;
    Set<Integer> hashed = new HashSet<>(chosen);
    int[] counts = new int[5];
    counts[0] = buckets.size() + (nullBucket ? 1 : 0);
    if (nullBucket) {
      counts[nullStatus == Status.MATCH ? 1 : nullStatus == Status.IN_FLIGHT ? 2 : 3]++;
      report.add(bucketRow(m, NULL_KEY, NULL_KEY, sourceNulls, null, silverNulls, null, nullStatus, nullChosen));
    }
    for (int i = 0; i < buckets.size(); i++) {
      BucketPlan.Bucket b = buckets.get(i);
      Status s = b.status();
      counts[s == Status.MATCH ? 1 : s == Status.IN_FLIGHT ? 2 : 3]++;
      report.add(bucketRow(m, reportBound(b.lo()), reportBound(b.hi()), b.sourceRows(), b.sourceSum(),
          b.silverRows(), b.silverSum(), s, hashed.contains(i)));
    }
    counts[4] = chosen.size() + (nullChosen ? 1 : 0);
    if (counts[4] == 0) {
      return new Tier(null, counts);
    }
    Lsn readLsn = client.maxLsn().orElse(Lsn.ZERO);
    ArrayNode chunks = F.arrayNode();
    Column silverO = expr(o);
    Column inChosen = nullChosen ? silverO.isNull() : lit(false);
    if (nullChosen) {
      // NULL sorts first: the range open below and ending at the lowest bucket holds the NULL key
      ArrayNode chunk = F.arrayNode();
      chunk.add(buckets.size());
      chunk.add(F.nullNode());
      chunk.add(buckets.isEmpty() ? F.nullNode() : readBound(buckets.get(0).lo(), true));
      chunks.add(chunk);
    }
    for (int i : chosen) {
      BucketPlan.Bucket b = buckets.get(i);
      ArrayNode chunk = F.arrayNode();
      chunk.add(i);
      chunk.add(readBound(b.lo(), true));
      chunk.add(readBound(b.hi(), false));
      chunks.add(chunk);
      Column in = silverO.isNotNull();
      if (b.lo().compareTo(BigInteger.valueOf(Long.MIN_VALUE)) > 0) {
        in = in.and(silverO.geq(lit(b.lo().longValueExact())));
      }
      if (b.hi().compareTo(BigInteger.valueOf(Long.MAX_VALUE)) <= 0) {
        in = in.and(silverO.lt(lit(b.hi().longValueExact())));
      }
      inChosen = inChosen.or(in);
    }
    Column srcO = expr(ordinalSql(key));
    Column srcIn = nullChosen ? srcO.isNull() : lit(false);
    for (int i : chosen) {
      BucketPlan.Bucket b = buckets.get(i);
      Column in = srcO.isNotNull();
      if (b.lo().compareTo(BigInteger.valueOf(Long.MIN_VALUE)) > 0) {
        in = in.and(srcO.geq(lit(b.lo().longValueExact())));
      }
      if (b.hi().compareTo(BigInteger.valueOf(Long.MAX_VALUE)) <= 0) {
        in = in.and(srcO.lt(lit(b.hi().longValueExact())));
      }
      srcIn = srcIn.or(in);
    }
    Dataset<Row> srcRows = read(chunks, readLsn).where(srcIn);
    Dataset<Row> silRows = silver.where(inChosen);
    return new Tier(keyRows(client, srcRows, silRows, readLsn, e(lower)), counts);
  }

  private static String fineSql(String ordinal, long w) {
    return "((" + ordinal + ") - pmod(" + ordinal + ", " + w + "L)) div " + w + "L";
  }

  private Lsn e(Lsn lower) {
    return silverLsn == null ? Lsn.ZERO : Lsn.parse(silverLsn);
  }

  /** A bucket bound as the report shows it: the ordinal for an integer key, the ISO date for a date key. */
  private String reportBound(BigInteger ordinal) {
    if (kind == Kind.DATE) {
      LocalDate d = KeyJson.dayBound(ordinal);
      return d == null ? null : KeyJson.text(F.textNode(d.toString()));
    }
    return ordinal.toString();
  }

  /** A bucket bound as the snapshot reader takes it: within the key type's range (never open below). */
  private JsonNode readBound(BigInteger ordinal, boolean lower) {
    if (kind == Kind.DATE) {
      LocalDate d = KeyJson.dayBound(ordinal);
      return d == null ? F.nullNode() : F.textNode(d.toString());
    }
    DataType t = keyTypes.get(0);
    long lo = t instanceof ByteType ? Byte.MIN_VALUE : t instanceof ShortType ? Short.MIN_VALUE
        : t instanceof IntegerType ? Integer.MIN_VALUE : Long.MIN_VALUE;
    long hi = t instanceof ByteType ? Byte.MAX_VALUE : t instanceof ShortType ? Short.MAX_VALUE
        : t instanceof IntegerType ? Integer.MAX_VALUE : Long.MAX_VALUE;
    BigInteger b = KeyJson.intBound(ordinal, lo, hi);
    return b == null ? F.nullNode() : F.numberNode(b);
  }

  // ---- tier 1 and 2, whole table (other keys) -----------------------------------------------------

  private Tier wholeTable(CdcClient client, SourceTable source, Dataset<Row> silver, Lsn m, Lsn lower,
      List<Row> report) {
    long sourceRows = client.countRows(source.table());
    long silverRows = silver.count();
    steps.accept(Reconcile.Step.SOURCE_COUNTED);
    Dataset<Row> bronze = inFlight.pinnedBronze();
    boolean moved = !inFlight.changedInBronze(bronze, lower).isEmpty() || !inFlight.unread(client, inFlight.bronzePosition(bronze, lower)).isEmpty();
    Status status = Status.of(sourceRows, null, silverRows, null, moved);
    // key ranges for tier 2
    List<KeyRange> ranges = new ArrayList<>();
    if (sourceRows <= bucketRows) {
      ranges.add(KeyRange.ALL);
    } else {
      int n = (int) Math.min(Integer.MAX_VALUE, (sourceRows + bucketRows - 1) / bucketRows);
      try {
        List<List<Object>> tiles = client.keyTiles(source.table(), keys, n);
        List<Object> lo = null;
        for (List<Object> t : tiles) {
          ranges.add(new KeyRange(lo, t));
          lo = t;
        }
        ranges.add(new KeyRange(lo, null));
      } catch (CdcConfigException e) {
        LOG.warn("reconcile of {}: the key {} cannot bound ranges ({}); the whole-table count is all that is compared",
            silverName, keys, e.getMessage());
      }
    }
    List<Integer> all = new ArrayList<>();
    for (int i = 0; i < ranges.size(); i++) {
      all.add(i);
    }
    // the count cannot say which range differs: a MISMATCH reads every range up to Sampling.MISMATCH_RANGES (a seeded
    // choice beyond), a MATCH the sample; sample 0 reads none (as the reference)
    List<Integer> chosen = status == Status.MISMATCH ? sampling.mismatchRanges(all) : sampling.sampled(all);
    if (status == Status.MISMATCH && chosen.size() < all.size()) {
      LOG.warn("reconcile of {}: the whole-table counts differ (source {}, silver {}); {} of its {} key ranges of"
          + " about {} rows are compared row by row (sample={}, at most {} on a mismatch), the differences may lie"
          + " in the {} others: rerun with sample(1.0) to compare them all", silverName, sourceRows, silverRows,
          chosen.size(), all.size(), bucketRows, sample, Sampling.MISMATCH_RANGES, all.size() - chosen.size());
    }
    report.add(bucketRow(m, null, null, sourceRows, null, silverRows, null, status, !chosen.isEmpty()));
    int[] counts = {1, status == Status.MATCH ? 1 : 0, status == Status.IN_FLIGHT ? 1 : 0,
        status == Status.MISMATCH ? 1 : 0, chosen.size()};
    if (chosen.isEmpty()) {
      return new Tier(null, counts);
    }
    Lsn readLsn = client.maxLsn().orElse(Lsn.ZERO);
    ArrayNode chunks = F.arrayNode();
    for (int i : chosen) {
      KeyRange r = ranges.get(i);
      ArrayNode chunk = F.arrayNode();
      chunk.add(i);
      chunk.add(r.lo() == null ? F.nullNode() : listBound(r.lo()));
      chunk.add(r.hi() == null ? F.nullNode() : listBound(r.hi()));
      chunks.add(chunk);
    }
    Dataset<Row> src = read(chunks, readLsn);
    Dataset<Row> sil = silver;
    if (chosen.size() < ranges.size()) {
      // only some ranges read: silver is restricted to the keys read (string order differs between SQL
      // Server's collation and Spark), so a key silver has beyond them is found by the count alone
      Dataset<Row> readKeys = src.select(keys.stream().map(k -> c(k).as("r_" + keys.indexOf(k))).toArray(Column[]::new));
      Column on = lit(true);
      for (int i = 0; i < keys.size(); i++) {
        on = on.and(silver.col(DeltaTables.quote(find(silverSchema, keys.get(i)).name())).eqNullSafe(readKeys.col("r_" + i)));
      }
      sil = silver.join(readKeys, on, "left_semi");
    }
    return new Tier(keyRows(client, src, sil, readLsn, e(lower)), counts);
  }

  private static JsonNode listBound(List<Object> key) {
    ArrayNode a = F.arrayNode();
    key.forEach(v -> a.add(KeyJson.value(v)));
    return a;
  }

  // ---- the tier 2 comparison -------------------------------------------------------------------

  /** The source rows of the chosen chunks, stamped {@code readLsn}, read once (local checkpoint). */
  private Dataset<Row> read(ArrayNode chunks, Lsn readLsn) {
    Map<String, String> o = new LinkedHashMap<>(rawOptions);
    o.put("snapshotChunks", KeyJson.text(chunks));
    ArrayNode k = F.arrayNode();
    keys.forEach(k::add);
    o.put("snapshotKeys", KeyJson.text(k));
    if (readLsn.compareTo(Lsn.ZERO) > 0) {
      o.put("snapshotLsn", readLsn.hex());
    }
    Dataset<Row> rows = spark.read().format(SNAPSHOT_FORMAT).options(o).load()
        .select(captured.stream().map(f -> c(f.name())).toArray(Column[]::new));
    Dataset<Row> once = rows.localCheckpoint();
    steps.accept(Reconcile.Step.SOURCE_READ);
    return once;
  }

  /**
   * The key rows of the chosen buckets: the source's rows against silver's, joined null-safe on the
   * keys, each side's captured columns cast to the schema types and hashed; keys that changed after
   * the lower LSN (in bronze, or in the change table beyond bronze) are IN_FLIGHT.
   */
  private Dataset<Row> keyRows(CdcClient client, Dataset<Row> src, Dataset<Row> silver, Lsn readLsn, Lsn e) {
    int n = captured.size();
    List<Column> s = new ArrayList<>();
    List<Column> t = new ArrayList<>();
    List<Column> sHashed = new ArrayList<>();
    List<Column> tHashed = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      StructField f = captured.get(i);
      Column sv = c(f.name()).cast(f.dataType());
      StructField sf = find(silverSchema, f.name());
      Column tv = sf == null ? lit(null).cast(f.dataType()) : c(sf.name()).cast(f.dataType());
      s.add(sv.as("s_c" + i));
      t.add(tv.as("t_c" + i));
      sHashed.add(sv.as(f.name()));
      tHashed.add(tv.as(f.name()));
    }
    s.add(sha2(to_json(struct(sHashed.toArray(Column[]::new))), 256).as("s_hash"));
    s.add(lit(true).as("s_present"));
    t.add(sha2(to_json(struct(tHashed.toArray(Column[]::new))), 256).as("t_hash"));
    t.add(lit(true).as("t_present"));
    t.add(c(find(silverSchema, CdcColumns.START_LSN).name()).as("t_lsn"));
    Dataset<Row> a = src.select(s.toArray(Column[]::new));
    Dataset<Row> b = silver.select(t.toArray(Column[]::new));
    List<Integer> keyIdx = keys.stream().map(k -> indexOf(captured, k)).toList();
    Column on = lit(true);
    for (int i : keyIdx) {
      on = on.and(a.col("s_c" + i).eqNullSafe(b.col("t_c" + i)));
    }
    Dataset<Row> j = a.join(b, on, "full_outer");
    Column type = when(col("t_present").isNull(), lit("MISSING_TARGET"))
        .when(col("s_present").isNull(), lit("MISSING_SOURCE"))
        .when(col("s_hash").notEqual(col("t_hash")), lit("RECORD_DIFF"));
    List<Column> diffs = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      diffs.add(when(not(col("s_c" + i).eqNullSafe(col("t_c" + i))), lit(captured.get(i).name())));
    }
    Column both = col("s_present").isNotNull().and(col("t_present").isNotNull());
    Column columns = when(both, concat_ws(", ", diffs.toArray(Column[]::new)));
    List<Column> keyCols = new ArrayList<>();
    for (int x = 0; x < keys.size(); x++) {
      int i = keyIdx.get(x);
      keyCols.add(coalesce(col("s_c" + i), col("t_c" + i)).as("k" + x));
    }
    List<Column> sel = new ArrayList<>(keyCols);
    sel.add(type.as("type"));
    sel.add(when(length(columns).gt(0), columns).as("columns"));
    sel.add(col("t_lsn"));
    Dataset<Row> diff = j.select(sel.toArray(Column[]::new)).where(col("type").isNotNull()).localCheckpoint();
    // keys in flight, with bronze pinned after the source read
    Dataset<Row> bronze = inFlight.pinnedBronze();
    Lsn lower = Lsn.min(readLsn, e);
    Dataset<Row> moved = inFlight.movedKeys(client, bronze, lower);
    Column mOn = lit(true);
    for (int x = 0; x < keys.size(); x++) {
      mOn = mOn.and(diff.col("k" + x).eqNullSafe(moved.col("m" + x)));
    }
    Dataset<Row> flagged = diff.join(moved, mOn, "left_outer");
    Column failure = when(col("m_flag").isNotNull(), lit("IN_FLIGHT")).otherwise(col("type"));
    List<Column> keyStruct = new ArrayList<>();
    for (int x = 0; x < keys.size(); x++) {
      keyStruct.add(col("k" + x).as(keys.get(x)));
    }
    return flagged.select(
        lit(runId).as("run_id"),
        lit(runAt).as("run_at"),
        lit(silverName).as("silver"),
        lit(silverVersion).as("silver_version"),
        lit(silverLsn).cast("string").as("silver_lsn"),
        lit(readLsn.hex()).as("source_lsn"),
        lit(null).cast("string").as("bucket_lo"),
        lit(null).cast("string").as("bucket_hi"),
        lit(null).cast("bigint").as("source_rows"),
        lit(null).cast("decimal(38,0)").as("source_key_sum"),
        lit(null).cast("bigint").as("silver_rows"),
        lit(null).cast("decimal(38,0)").as("silver_key_sum"),
        lit(null).cast("string").as("status"),
        lit(null).cast("boolean").as("hashed"),
        to_json(struct(keyStruct.toArray(Column[]::new)), KEEP_NULLS).as("key"),
        failure.as("failure_type"),
        to_json(struct(col("t_lsn").as("silver_start_lsn"), col("columns"))).as("detail"));
  }

  private static int indexOf(List<StructField> fields, String name) {
    for (int i = 0; i < fields.size(); i++) {
      if (fields.get(i).name().equals(name)) {
        return i;
      }
    }
    throw new IllegalStateException(name);
  }

  // ---- chunk checks --------------------------------------------------------------------------------

  /** The chunk rows of the newest chunked snapshot of bronze (§17 step 9, §33 W5). */
  private List<Row> chunkRows() {
    if (!DeltaTables.exists(spark, factsRef)) {
      LOG.warn("reconcile of {}: factsTable {} does not exist; no chunk checks", silverName, factsRef);
      return List.of();
    }
    Dataset<Row> facts = DeltaTables.read(spark, factsRef);
    List<String> fc = Arrays.asList(facts.columns());
    if (!fc.contains(FactsColumn.DETAIL.column()) || !fc.contains(FactsColumn.EVENT.column())) {
      return List.of();
    }
    Column event = col(FactsColumn.EVENT.column());
    Column detail = col(FactsColumn.DETAIL.column());
    Dataset<Row> mine = facts.where(col(FactsColumn.TARGET.column()).equalTo(bronzeName));
    Row open = mine.where(event.equalTo("snapshot_open").and(not(get_json_object(detail, "$.mode").eqNullSafe("full"))))
        .agg(max(col(FactsColumn.MAX_LSN.column()))).first();
    if (open.isNullAt(0)) {
      return List.of();
    }
    String s = open.getString(0);
    boolean complete = !mine.where(event.isin("bootstrap", "resnapshot")
        .and(col(FactsColumn.MAX_LSN.column()).equalTo(s))).isEmpty();
    List<ChunkChecks.FactsChunk> chunks = new ArrayList<>();
    for (Row r : mine.where(event.equalTo("snapshot_chunk").and(get_json_object(detail, "$.snapshot").equalTo(s)))
        .select(FactsColumn.DETAIL.column(), FactsColumn.ROWS.column(), FactsColumn.MIN_LSN.column()).collectAsList()) {
      JsonNode d = KeyJson.parse(r.getString(0));
      JsonNode lo = d.path("lo");
      JsonNode hi = d.path("hi");
      chunks.add(new ChunkChecks.FactsChunk(d.path("chunk").asInt(), lo.isMissingNode() || lo.isNull() ? null
          : KeyJson.text(lo), hi.isMissingNode() || hi.isNull() ? null : KeyJson.text(hi),
          d.path("last").asBoolean(false), r.isNullAt(1) ? null : r.getLong(1), r.isNullAt(2) ? null : r.getString(2)));
    }
    List<ChunkChecks.BronzeChunk> held = new ArrayList<>();
    StructField chunkCol = find(bronzeSchema, CdcColumns.CHUNK);
    StructField snapCol = find(bronzeSchema, CdcColumns.SNAPSHOT);
    if (chunkCol != null && snapCol != null) {
      Dataset<Row> bronze = inFlight.pinnedBronze();
      for (Row r : bronze.where(c(find(bronzeSchema, CdcColumns.OPERATION).name()).equalTo(0)
              .and(c(snapCol.name()).equalTo(s)).and(c(chunkCol.name()).isNotNull()))
          .groupBy(c(chunkCol.name())).agg(count(lit(1)), min(c(find(bronzeSchema, CdcColumns.START_LSN).name())))
          .collectAsList()) {
        held.add(new ChunkChecks.BronzeChunk(r.getInt(0), r.getLong(1), r.getString(2)));
      }
    }
    List<Row> out = new ArrayList<>();
    for (ChunkChecks.Problem p : ChunkChecks.check(s, chunks, held, complete)) {
      ObjectNode d = F.objectNode();
      d.put("snapshot", s);
      d.put("chunk", p.chunk());
      p.detail().forEach((k, v) -> d.set(k, KeyJson.value(v)));
      out.add(RowFactory.create(runId, runAt, silverName, silverVersion, silverLsn, null, p.lo(), p.hi(), null, null,
          null, null, null, null, null, p.failureType(), KeyJson.text(d)));
    }
    return out;
  }

  private Row bucketRow(Lsn m, String lo, String hi, long sourceRows, BigInteger sourceSum, long silverRows,
      BigInteger silverSum, Status status, boolean hashed) {
    return RowFactory.create(runId, runAt, silverName, silverVersion, silverLsn, m.hex(), lo, hi, sourceRows,
        sourceSum == null ? null : new BigDecimal(sourceSum), silverRows,
        silverSum == null ? null : new BigDecimal(silverSum), status.name(), hashed, null, null, null);
  }
}
