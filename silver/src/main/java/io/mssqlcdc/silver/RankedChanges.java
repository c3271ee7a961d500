package io.mssqlcdc.silver;

import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.max;
import static org.apache.spark.sql.functions.max_by;
import static org.apache.spark.sql.functions.min;
import static org.apache.spark.sql.functions.not;
import static org.apache.spark.sql.functions.sum;
import static org.apache.spark.sql.functions.when;

import io.mssqlcdc.connector.CdcColumns;
import io.mssqlcdc.sink.tables.OneTaskAggregate;
import io.mssqlcdc.sink.tables.ScanSize;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Observation;
import org.apache.spark.sql.Row;
import org.apache.spark.storage.StorageLevel;

/**
 * A call's bronze rows ranked to the latest image per key in one pass over bronze, cached, with
 * what the call decides by computed in the same pass (issue 13: one read of bronze, not one per
 * question): another table's capture instance among the rows, the newest change applied, the keys'
 * spread for pruning the MERGE, and, when the snapshot probe is folded in, the newest whole
 * snapshot and the chunk rows it saw.
 *
 * <p>The latest image of a key is the image of its applied row with the greatest
 * {@link ImageOrder} order, by {@code max_by} over the order as a struct: a struct compares field
 * by field with NULL lowest, so rows without {@code _command_id}/{@code _seqval} rank after those
 * with, as the order says. One aggregation (partial per task, then per key after one shuffle)
 * rather than a window over every row.
 *
 * <p>The cache is released by {@link #close()}; Delta's MERGE materializes its source from it. When the
 * pass reads few bronze files (a micro-batch's: {@link #LOCAL_MAX_BYTES}, {@link #LOCAL_MAX_ROWS}), the per-key
 * rows are taken to the driver instead and the statistics computed there ({@link LocalRanking}, decision
 * 0020): the source of what follows is a local relation, and no cache is made.
 */
final class RankedChanges implements AutoCloseable {
  private static final String IMAGE = "_mssql_cdc_image";
  private static final String ORDER = "_mssql_cdc_order";
  static final String LATEST = "_mssql_cdc_latest";
  static final String OTHER = "_mssql_cdc_other";
  static final String TOP = "_mssql_cdc_top";
  static final String WHOLE = "_mssql_cdc_whole";
  static final String CHUNKS = "_mssql_cdc_chunks";
  private static final String APPLIED = "_mssql_cdc_applied";
  private static final String CHANGED = "_mssql_cdc_changed";
  private static final String RANK = "_mssql_cdc_rank";
  private static final int KEY_STATS = 5;
  /**
   * The most compressed bytes, and rows by the files' statistics, of bronze files a ranking may read to be
   * taken to the driver rather than cached ({@link LocalRanking}): a micro-batch's files are far below.
   */
  static final long LOCAL_MAX_BYTES = 8L << 20;
  static final long LOCAL_MAX_ROWS = 100_000;

  private final Dataset<Row> perKey;
  private final Row stats;
  private final BronzeColumns columns;
  private final boolean keyStats;
  /** The per-key rows when the ranking was taken to the driver; null when cached. */
  private final List<Row> local;

  private RankedChanges(Dataset<Row> perKey, Row stats, BronzeColumns columns, boolean keyStats, List<Row> local) {
    this.perKey = perKey;
    this.stats = stats;
    this.columns = columns;
    this.keyStats = keyStats;
    this.local = local;
  }

  /** Which of the rows read a pass takes for what. */
  record Marks(Column base, Column probe, Column ours, Column change, Column snapshotId, Column chunked) {}

  /**
   * Ranks {@code rows} (bronze at the pinned version, filtered to what the call reads) and computes
   * the statistics: one Spark action, after which the per-key rows are cached.
   *
   * @param rows the rows read
   * @param marks which are the call's rows ({@code base}: its changes, snapshot rows and waves, of any
   *     instance), which the snapshot probe's ({@code probe}: {@code lit(false)} when not folded in),
   *     which of this table's instances, which changes, and each row's snapshot id and chunk flag
   * @param extras rows applied besides (the waves' later changes and range deletes), of this table;
   *     null when none
   * @param keyStats whether to compute the keys' ranges (the MERGE may be pruned)
   */
  static RankedChanges rank(Dataset<Row> rows, Marks marks, Dataset<Row> extras, BronzeColumns columns,
      boolean keyStats) {
    return rank(rows, marks, extras, columns, keyStats, null, local -> { });
  }

  /**
   * {@link #rank}, telling {@code planned} where the per-key rows go ({@code true}: to the driver) once that is
   * decided, before the ranking's job runs (work to start beside it).
   */
  static RankedChanges rank(Dataset<Row> rows, Marks marks, Dataset<Row> extras, BronzeColumns columns,
      boolean keyStats, java.util.function.Consumer<Boolean> planned) {
    return rank(rows, marks, extras, columns, keyStats, null, planned);
  }

  /**
   * {@link #rank}, with {@code onDriver} deciding where the per-key rows go (null: by the size of what the pass
   * reads; tests force either way).
   */
  static RankedChanges rank(Dataset<Row> rows, Marks marks, Dataset<Row> extras, BronzeColumns columns,
      boolean keyStats, Boolean onDriver) {
    return rank(rows, marks, extras, columns, keyStats, onDriver, local -> { });
  }

  private static RankedChanges rank(Dataset<Row> rows, Marks marks, Dataset<Row> extras, BronzeColumns columns,
      boolean keyStats, Boolean onDriver, java.util.function.Consumer<Boolean> planned) {
    Dataset<Row> ranking = perKey(rows, marks, extras, columns);
    if (onDriver == null) {
      // Few bronze rows to read (a micro-batch's files, by their statistics after Delta's data skipping).
      Optional<ScanSize.Size> size = ScanSize.of(ranking);
      onDriver = size.isPresent() && size.get().bytes() <= LOCAL_MAX_BYTES && size.get().rows() >= 0
          && size.get().rows() <= LOCAL_MAX_ROWS;
    }
    planned.accept(onDriver);
    if (onDriver) {
      // The per-key rows taken to the driver in the ranking's one job (one task, no shuffle: the rows are few),
      // the statistics computed there, no cache.
      List<Row> collected = OneTaskAggregate.of(ranking).orElse(ranking).collectAsList();
      List<String> keys = columns.keys();
      List<Boolean> rangeable = keys.stream().map(k -> KeyPruning.rangeable(columns.type(k))).toList();
      Row stats = LocalRanking.statistics(collected, keys, rangeable, keyStats);
      Dataset<Row> perKey = ranking.sparkSession().createDataFrame(collected, ranking.schema());
      return new RankedChanges(perKey, stats, columns, keyStats, collected);
    }
    Dataset<Row> perKey = ranking.persist(StorageLevel.MEMORY_AND_DISK());
    try {
      List<Column> aggs = statistics(columns, keyStats);
      Row stats = perKey.agg(aggs.get(0), aggs.subList(1, aggs.size()).toArray(Column[]::new)).first();
      return new RankedChanges(perKey, stats, columns, keyStats, null);
    } catch (RuntimeException | Error e) {
      perKey.unpersist(false);
      throw e;
    }
  }

  /**
   * The ranking of {@code rows} not cached, its statistics observed while a write runs it
   * ({@link FirstWrite}): {@link Observed#inserts()} is what an insert-only MERGE of {@link #latest()}
   * would insert, and {@link Observed#ranked} gives the statistics once the write has run (no key
   * ranges: an insert-only write has nothing to prune).
   *
   * <p>{@code byWindow}: the caller has ruled out, before the write, the rows whose statistics a window
   * cannot keep: another table's capture instance, and probe rows that could change the plan (a whole
   * snapshot newer than the ones known, chunk rows). The latest image of each key is then taken by
   * {@code row_number()} over its rows in the same order (applied rows first, then {@link ImageOrder}'s,
   * descending with NULL lowest, as the struct's {@code max_by} compares), filtered to the first: Spark keeps
   * only each key's first row before the shuffle and sorts once ({@code WindowGroupLimit}), where the
   * aggregation sorts on both sides of it. The statistics are observed on the ranked rows: the newest change
   * applied is the newest of the keys' first rows (a key's applied rows are its changes, or a snapshot's
   * rows at S and its changes after S), the other instance, whole snapshot and chunk rows are none. That rests on
   * the caller's proof that no chunk row is there: a chunk row is stamped at its wave, after S, and as a key's
   * first row it would hide the key's newer changes from that statistic.
   */
  static Observed observed(Dataset<Row> rows, Marks marks, BronzeColumns columns, boolean byWindow) {
    Observation o = new Observation("mssql_cdc_ranking_" + UUID.randomUUID().toString().replace("-", ""));
    Dataset<Row> perKey = perKey(rows, marks, null, columns);
    if (!byWindow) {
      List<Column> aggs = new ArrayList<>();
      List<Column> stats = statistics(columns, false);
      for (int i = 0; i < stats.size(); i++) {
        aggs.add(stats.get(i).as("s" + i));
      }
      Dataset<Row> watched = perKey.observe(o, aggs.get(0), aggs.subList(1, aggs.size()).toArray(Column[]::new));
      List<Column> out = new ArrayList<>();
      for (String c : columns.written()) {
        out.add(col(LATEST + "." + MergeRules.quote(c)).as(c));
      }
      return new Observed(perKey, watched.where(col(LATEST).isNotNull()
          .and(not(col(LATEST + "." + CdcColumns.OPERATION).isin(1, 3)))).select(out.toArray(Column[]::new)),
          o, columns, false);
    }
    Column applied = coalesce(marks.base().and(marks.ours()), lit(false));
    java.util.LinkedHashSet<String> needed = new java.util.LinkedHashSet<>(columns.keys());
    needed.addAll(columns.written());
    List<ImageOrder.SortKey> order = ImageOrder.newestFirst(columns.hasCommandId());
    for (ImageOrder.SortKey k : order) {
      needed.add(k.column());
    }
    List<Column> input = new ArrayList<>();
    for (String c : needed) {
      input.add(col(MergeRules.quote(c)));
    }
    input.add(applied.as(APPLIED));
    input.add(coalesce(applied.and(marks.change()), lit(false)).as(CHANGED));
    List<Column> sort = new ArrayList<>(List.of(col(APPLIED).desc()));
    for (ImageOrder.SortKey k : order) {
      sort.add(col(MergeRules.quote(k.column())).desc_nulls_last());
    }
    org.apache.spark.sql.expressions.WindowSpec w = org.apache.spark.sql.expressions.Window
        .partitionBy(columns.keys().stream().map(k -> col(MergeRules.quote(k))).toArray(Column[]::new))
        .orderBy(sort.toArray(Column[]::new));
    Dataset<Row> first = rows.select(input.toArray(Column[]::new))
        .withColumn(RANK, org.apache.spark.sql.functions.row_number().over(w)).where(col(RANK).equalTo(1));
    Dataset<Row> watched = first.observe(o, max(when(col(CHANGED), col(CdcColumns.START_LSN))).as("s1"),
        count(when(col(APPLIED), lit(1))).as("s2"));
    List<Column> out = new ArrayList<>();
    for (String c : columns.written()) {
      out.add(col(MergeRules.quote(c)).as(c));
    }
    return new Observed(perKey, watched.where(col(APPLIED).and(not(col(CdcColumns.OPERATION).isin(1, 3))))
        .select(out.toArray(Column[]::new)), o, columns, true);
  }

  /**
   * A ranking whose statistics are observed: see {@link #observed}. {@code inserts}: the rows an insert-only
   * MERGE of the latest images would insert (not a delete), silver's columns by name, from the observed ranking.
   */
  record Observed(Dataset<Row> perKey, Dataset<Row> inserts, Observation observation, BronzeColumns columns,
      boolean byWindow) {
    /** The statistics, once a write ran {@link #inserts()} ({@code stats}: the observation's row). */
    RankedChanges ranked(Row stats) {
      Row row = !byWindow ? stats : new org.apache.spark.sql.catalyst.expressions.GenericRowWithSchema(
          new Object[] {null, stats.isNullAt(0) ? null : stats.getString(0), stats.getLong(1), null, 0L},
          new org.apache.spark.sql.types.StructType().add("s0", "string").add("s1", "string").add("s2", "long")
              .add("s3", "string").add("s4", "long"));
      return new RankedChanges(perKey, row, columns, false, null);
    }
  }

  /** The per-key aggregation of {@code rows} (and {@code extras}), not cached. */
  private static Dataset<Row> perKey(Dataset<Row> rows, Marks marks, Dataset<Row> extras, BronzeColumns columns) {
    Column applied = coalesce(marks.base().and(marks.ours()), lit(false));
    Dataset<Row> input = rows.select(inputColumns(columns, applied,
        when(marks.base().and(not(marks.ours())), col(CdcColumns.CAPTURE_INSTANCE)),
        when(coalesce(applied.and(marks.change()), lit(false)), col(CdcColumns.START_LSN)),
        when(coalesce(marks.probe().and(not(marks.chunked())), lit(false)), marks.snapshotId()),
        when(coalesce(marks.probe().and(marks.chunked()), lit(false)), lit(1))));
    if (extras != null) {
      input = input.unionByName(extras.select(inputColumns(columns, lit(true), lit(null).cast("string"),
          lit(null).cast("string"), lit(null).cast("string"), lit(null).cast("int"))));
    }
    Column[] keys = columns.keys().stream().map(k -> col(MergeRules.quote(k))).toArray(Column[]::new);
    return input.groupBy(keys).agg(max_by(col(IMAGE), col(ORDER)).as(LATEST), max(col(OTHER)).as(OTHER),
        max(col(TOP)).as(TOP), max(col(WHOLE)).as(WHOLE), count(col(CHUNKS)).as(CHUNKS));
  }

  /** The statistics over the per-key rows, in the order the accessors read them ({@link LocalRanking}'s too). */
  private static List<Column> statistics(BronzeColumns columns, boolean keyStats) {
    Column has = col(LATEST).isNotNull();
    List<Column> aggs = new ArrayList<>(List.of(max(col(OTHER)), max(col(TOP)), count(when(has, lit(1))),
        max(col(WHOLE)), sum(col(CHUNKS))));
    if (keyStats) {
      for (String k : columns.keys()) {
        Column kc = col(MergeRules.quote(k));
        aggs.add(min(when(has, kc)));
        aggs.add(max(when(has, kc)));
        aggs.add(max(when(has.and(kc.isNull()), lit(true))));
      }
    }
    return aggs;
  }

  private static Column[] inputColumns(BronzeColumns columns, Column applied, Column other, Column top, Column whole,
      Column chunk) {
    List<Column> out = new ArrayList<>();
    for (String k : columns.keys()) {
      out.add(col(MergeRules.quote(k)));
    }
    List<Column> image = new ArrayList<>();
    for (String c : columns.written()) {
      image.add(col(MergeRules.quote(c)));
    }
    image.add(col(CdcColumns.OPERATION));
    List<Column> order = new ArrayList<>();
    for (ImageOrder.SortKey k : ImageOrder.newestFirst(columns.hasCommandId())) {
      order.add(col(k.column()));
    }
    out.add(org.apache.spark.sql.functions.struct(image.toArray(Column[]::new)).as(IMAGE));
    out.add(when(applied, org.apache.spark.sql.functions.struct(order.toArray(Column[]::new))).as(ORDER));
    out.add(other.as(OTHER));
    out.add(top.as(TOP));
    out.add(whole.cast("string").as(WHOLE));
    out.add(chunk.cast("int").as(CHUNKS));
    return out.toArray(Column[]::new);
  }

  /** The latest image of every key applied: the written columns and {@code _operation}, one row per key. */
  Dataset<Row> latest() {
    return perKey.where(col(LATEST).isNotNull()).select(col(LATEST + ".*"));
  }

  /** The greatest name of another table's capture instance among the call's rows; null when none. */
  String otherInstance() {
    return stats.isNullAt(0) ? null : stats.getString(0);
  }

  /** The newest change LSN applied; null when none. */
  String top() {
    return stats.isNullAt(1) ? null : stats.getString(1);
  }

  /** How many keys are applied. */
  long keysApplied() {
    return stats.getLong(2);
  }

  /** Whether the ranking was taken to the driver (a source Spark reads from the driver's memory). */
  boolean isLocal() {
    return local != null;
  }

  /** The probe's newest whole snapshot id; null when none (or not probed). */
  String whole() {
    return stats.isNullAt(3) ? null : stats.getString(3);
  }

  /** The probe's chunk rows (0 when not probed). */
  long chunkRows() {
    return stats.isNullAt(4) ? 0 : stats.getLong(4);
  }

  /** Per key column (those whose type has an order) the range of the keys applied, for pruning; empty without. */
  List<KeyPruning.Range> ranges() {
    List<KeyPruning.Range> out = new ArrayList<>();
    if (!keyStats) {
      return out;
    }
    int i = KEY_STATS;
    for (String k : columns.keys()) {
      Object lo = stats.get(i);
      Object hi = stats.get(i + 1);
      boolean nulls = !stats.isNullAt(i + 2);
      i += 3;
      if (KeyPruning.rangeable(columns.type(k))) {
        out.add(new KeyPruning.Range(k, lo, hi, nulls));
      }
    }
    return out;
  }

  /** The keys applied, one tuple each (values in key order); call when they are few. */
  List<List<Object>> keys() {
    List<String> keyCols = columns.keys();
    if (local != null) {
      return LocalRanking.keys(local, keyCols.size());
    }
    List<List<Object>> out = new ArrayList<>();
    for (Row r : latest().select(keyCols.stream().map(k -> col(MergeRules.quote(k))).toArray(Column[]::new))
        .collectAsList()) {
      List<Object> tuple = new ArrayList<>();
      for (int j = 0; j < keyCols.size(); j++) {
        tuple.add(r.get(j));
      }
      out.add(tuple);
    }
    return out;
  }

  @Override
  public void close() {
    perKey.unpersist(false);
  }
}
