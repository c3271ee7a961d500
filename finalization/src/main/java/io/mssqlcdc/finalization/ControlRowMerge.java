package io.mssqlcdc.finalization;

import static io.mssqlcdc.finalization.ControlTable.END_COMMIT_TS;
import static io.mssqlcdc.finalization.ControlTable.END_LSN;
import static io.mssqlcdc.finalization.ControlTable.FINALIZED_UNTIL;
import static io.mssqlcdc.finalization.ControlTable.TABLE_NAME;
import static io.mssqlcdc.finalization.ControlTable.UPDATED_AT;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.when;

import io.delta.tables.DeltaMergeBuilder;
import io.mssqlcdc.connector.CdcOffset;
import io.mssqlcdc.sink.tables.DeltaConflicts;
import io.mssqlcdc.sink.tables.DeltaTables;
import io.mssqlcdc.sink.tables.RowRewrite;
import io.mssqlcdc.sink.tables.TableRef;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * One control-table row written by one MERGE (one commit): the verdict moved only forward, as
 * {@link Finalization#advance} moves it, and the caller's own columns (silver's position) set every
 * time, in the same commit. The one place the verdict's columns ({@code finalized_until},
 * {@code end_lsn}, {@code end_commit_ts}, {@code updated_at}), its forward-only condition (the row's
 * verdict is NULL, e.g. a row silver created, or older than the candidate) and the end offset's
 * commit-time conversion (UTC, without zone) are written. A MERGE that loses a race with another
 * commit on the control table is retried (OSS Delta fails concurrent MERGEs even on other rows).
 *
 * <p>A caller that read the row a moment before (silver, at the start of its call) says so with
 * {@link #existing()}: the row is then written with an {@code UPDATE} (the same columns, the
 * verdict's condition as {@code CASE} expressions, one commit), which costs Delta fewer Spark jobs
 * than a MERGE (issue 25: 6-7 against 10-11; no source to materialize, no join); when it updates
 * no row (the row was deleted meanwhile), the MERGE runs as without it.
 *
 * <pre>{@code
 * ControlRowMerge.row("silver.orders").set("applied_lsn", DataTypes.StringType, lsn)
 *     .verdict(candidate, endOffset).execute(spark, control, "recording silver.orders");
 * }</pre>
 */
public final class ControlRowMerge {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(ControlRowMerge.class);
  /** A column of the caller's and its value. */
  private record Own(String column, DataType type, Object value) {}

  private final String tableName;
  private final List<Own> own = new ArrayList<>();
  private LocalDateTime candidate;
  private CdcOffset end;
  private boolean existing;

  private ControlRowMerge(String tableName) {
    this.tableName = Objects.requireNonNull(tableName, "tableName");
  }

  /** The row of {@code tableName} (matched on {@code table_name}; inserted when missing). */
  public static ControlRowMerge row(String tableName) {
    return new ControlRowMerge(tableName);
  }

  /** A column of the caller's, set to {@code value} (NULL allowed) whether or not the verdict moves. */
  public ControlRowMerge set(String column, DataType type, Object value) {
    boolean taken = own.stream().anyMatch(o -> o.column().equals(column));
    if (column.equals(TABLE_NAME) || VERDICT.contains(column) || taken) {
      throw new IllegalArgumentException("column " + column + " is the row's key, the verdict's, or set already");
    }
    own.add(new Own(column, type, value));
    return this;
  }

  /**
   * The verdict {@code candidate} with the end offset that implies it, written only forward: a row
   * whose verdict is at or after it keeps its verdict columns (its other columns are still set).
   */
  public ControlRowMerge verdict(LocalDateTime candidate, CdcOffset end) {
    this.candidate = Objects.requireNonNull(candidate, "candidate");
    this.end = Objects.requireNonNull(end, "end");
    return this;
  }

  /**
   * The caller read the row just before: write it with an UPDATE, the MERGE only when that updates
   * no row. Only with columns of the caller's (a verdict alone is written by the MERGE).
   */
  public ControlRowMerge existing() {
    this.existing = true;
    return this;
  }

  private static final List<String> VERDICT = List.of(FINALIZED_UNTIL, END_LSN, END_COMMIT_TS, UPDATED_AT);

  /**
   * Runs the MERGE (retried on concurrent-commit conflicts; {@code what} names it in the error
   * when the retries run out).
   *
   * @return Delta's metrics row ({@code num_affected_rows}, ...); with no column of the caller's,
   *     {@code num_affected_rows} is 0 when the stored verdict was at or after the candidate
   */
  public Row execute(SparkSession spark, TableRef control, String what) {
    if (candidate == null && own.isEmpty()) {
      throw new IllegalStateException("nothing to write to the row of " + tableName);
    }
    StructType schema = new StructType().add(TABLE_NAME, DataTypes.StringType);
    List<Object> row = new ArrayList<>();
    row.add(tableName);
    Map<String, String> ownSet = new LinkedHashMap<>();
    for (Own c : own) {
      schema = schema.add(c.column(), c.type());
      row.add(c.value());
      ownSet.put(c.column(), "s." + c.column());
    }
    Map<String, String> both = new LinkedHashMap<>(ownSet);
    if (candidate != null) {
      schema = schema.add(FINALIZED_UNTIL, DataTypes.TimestampNTZType).add(END_LSN, DataTypes.StringType)
          .add(END_COMMIT_TS, DataTypes.TimestampNTZType).add(UPDATED_AT, DataTypes.TimestampNTZType);
      row.add(candidate);
      row.add(end.lsn().toString());
      row.add(LocalDateTime.ofInstant(end.commitTs().orElseThrow(), ZoneOffset.UTC));
      row.add(LocalDateTime.now(ZoneOffset.UTC));
      for (String c : VERDICT) {
        both.put(c, "s." + c);
      }
    }
    Map<String, String> insert = new LinkedHashMap<>();
    insert.put(TABLE_NAME, "s." + TABLE_NAME);
    insert.putAll(both);
    if (existing && !own.isEmpty()) {
      Row updated = update(spark, control, what, row);
      if (updated.getLong(0) > 0) {
        return updated;
      }
    }
    var source = spark.createDataFrame(List.of(RowFactory.create(row.toArray())), schema);
    return DeltaConflicts.retrying(what, () -> {
      DeltaMergeBuilder m = DeltaTables.table(spark, control).as("t")
          .merge(source.as("s"), "t." + TABLE_NAME + " = s." + TABLE_NAME);
      if (candidate != null) {
        m = m.whenMatched(forwardOnly()).updateExpr(both);
      }
      if (!ownSet.isEmpty()) {
        m = m.whenMatched().updateExpr(ownSet);
      }
      return m.whenNotMatched().insertExpr(insert).execute().first();
    });
  }

  /**
   * The row's write in two steps: its files written now ({@link RowRewrite}: beside the caller's other
   * work, e.g. on a thread of its own while silver's MERGE runs), its commit by {@link Prepared#commit()}
   * later. The commit is the one {@link #execute} would make: for an {@link #existing()} row its
   * {@code UPDATE}; else the insert of the row when no file may hold it (by the files' statistics). Where
   * that path does not apply (a table feature, Delta's internal API not as this build knows it, the row
   * gone or there after all, a conflicting commit in between), {@link Prepared#commit()} runs
   * {@link #execute} instead. With no column of the caller's, nothing is prepared.
   */
  public Prepared prepare(SparkSession spark, TableRef control, String what) {
    RowRewrite rewrite = null;
    if (!own.isEmpty()) {
      try {
        rewrite = (existing ? RowRewrite.prepare(spark, control, TABLE_NAME, tableName, rewriteColumns())
            : RowRewrite.prepareInsert(spark, control, TABLE_NAME, tableName, insertColumns())).orElse(null);
      } catch (Exception | LinkageError e) {
        LOG.debug("{}: not prepared ahead ({}); written at its commit", what, e.toString());
      }
    }
    return new Prepared(spark, control, what, rewrite);
  }

  /** A row's write prepared by {@link #prepare}. */
  public final class Prepared {
    private final SparkSession spark;
    private final TableRef control;
    private final String what;
    private final RowRewrite rewrite;
    private boolean committedAhead;

    private Prepared(SparkSession spark, TableRef control, String what, RowRewrite rewrite) {
      this.spark = spark;
      this.control = control;
      this.what = what;
      this.rewrite = rewrite;
    }

    /** Whether the files were written ahead (else {@link #commit()} writes the row the usual way). */
    public boolean ahead() {
      return rewrite != null;
    }

    /**
     * Commits the prepared rewrite, or writes the row as {@link #execute} does when there is none or it
     * conflicts with a commit made since it was prepared.
     *
     * @return Delta's metrics row, {@code num_affected_rows} first
     */
    public Row commit() {
      if (rewrite != null && rewrite.commit()) {
        committedAhead = true;
        return RowFactory.create(rewrite.matched());
      }
      return execute(spark, control, what);
    }

    /** Whether {@link #commit()} committed the files written ahead (else it wrote the row as {@link #execute} does). */
    public boolean committedAhead() {
      return committedAhead;
    }
  }

  /** The columns {@link #prepare} gives a new row (the MERGE's insert: the caller's, the verdict's). */
  private Map<String, Column> insertColumns() {
    Map<String, Column> set = new LinkedHashMap<>();
    for (Own c : own) {
      set.put(c.column(), lit(c.value()).cast(c.type()));
    }
    if (candidate != null) {
      set.put(FINALIZED_UNTIL, lit(candidate));
      set.put(END_LSN, lit(end.lsn().toString()));
      set.put(END_COMMIT_TS, lit(LocalDateTime.ofInstant(end.commitTs().orElseThrow(), ZoneOffset.UTC)));
      set.put(UPDATED_AT, lit(LocalDateTime.now(ZoneOffset.UTC)));
    }
    return set;
  }

  /** The columns {@link #prepare} sets, each as the UPDATE's right-hand side (the verdict's forward only). */
  private Map<String, Column> rewriteColumns() {
    Map<String, Column> set = new LinkedHashMap<>();
    for (Own c : own) {
      set.put(c.column(), lit(c.value()).cast(c.type()));
    }
    if (candidate != null) {
      Column forward = col(FINALIZED_UNTIL).isNull().or(lit(candidate).gt(col(FINALIZED_UNTIL)));
      set.put(FINALIZED_UNTIL, when(forward, lit(candidate)).otherwise(col(FINALIZED_UNTIL)));
      set.put(END_LSN, when(forward, lit(end.lsn().toString())).otherwise(col(END_LSN)));
      set.put(END_COMMIT_TS, when(forward, lit(LocalDateTime.ofInstant(end.commitTs().orElseThrow(),
          ZoneOffset.UTC))).otherwise(col(END_COMMIT_TS)));
      set.put(UPDATED_AT, when(forward, lit(LocalDateTime.now(ZoneOffset.UTC))).otherwise(col(UPDATED_AT)));
    }
    return set;
  }

  /**
   * The UPDATE of the row: the caller's columns set, the verdict's columns each
   * {@code CASE WHEN <forward> THEN <new> ELSE <old> END} (every right-hand side sees the row as it
   * was, so the condition is the MERGE's). Values are written as SQL literals (Delta's UPDATE does
   * not take named parameters).
   *
   * @param values the MERGE's source row: the table name, the caller's values, then the verdict's
   * @return Delta's metrics row, {@code num_affected_rows} first
   */
  private Row update(SparkSession spark, TableRef control, String what, List<Object> values) {
    List<String> set = new ArrayList<>();
    int i = 1;
    for (Own c : own) {
      set.add(DeltaTables.quote(c.column()) + " = " + literal(values.get(i++), c.type()));
    }
    if (candidate != null) {
      String forward = FINALIZED_UNTIL + " IS NULL OR " + literal(candidate, DataTypes.TimestampNTZType) + " > "
          + FINALIZED_UNTIL;
      for (String c : VERDICT) {
        Object v = values.get(i++);
        DataType type = c.equals(END_LSN) ? DataTypes.StringType : DataTypes.TimestampNTZType;
        set.add(c + " = CASE WHEN " + forward + " THEN " + literal(v, type) + " ELSE " + c + " END");
      }
    }
    String sql = "UPDATE " + control.sql() + " SET " + String.join(", ", set) + " WHERE " + TABLE_NAME + " = "
        + literal(values.get(0), DataTypes.StringType);
    return DeltaConflicts.retrying(what, () -> spark.sql(sql).first());
  }

  private static final DateTimeFormatter NTZ = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSSSSS");

  /** {@code value} as a SQL literal of {@code type}: a string, an integer, a TIMESTAMP_NTZ or a typed NULL. */
  static String literal(Object value, DataType type) {
    if (value == null) {
      return "CAST(NULL AS " + type.sql() + ")";
    }
    if (value instanceof String s && type.equals(DataTypes.StringType)) {
      return DeltaTables.literal(s);
    }
    if ((value instanceof Integer || value instanceof Long) && type.equals(DataTypes.IntegerType)) {
      return "CAST(" + value + " AS INT)";
    }
    if (value instanceof LocalDateTime t && type.equals(DataTypes.TimestampNTZType)) {
      return "TIMESTAMP_NTZ '" + NTZ.format(t) + "'";
    }
    throw new IllegalArgumentException("no SQL literal for " + value.getClass().getSimpleName() + " as " + type.sql());
  }

  /** The verdict's forward-only condition ({@code t}: the control row, {@code s}: the source row). */
  static String forwardOnly() {
    return "t." + FINALIZED_UNTIL + " IS NULL OR s." + FINALIZED_UNTIL + " > t." + FINALIZED_UNTIL;
  }
}
