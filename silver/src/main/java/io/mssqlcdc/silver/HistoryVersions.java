package io.mssqlcdc.silver;

import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.greatest;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.max;
import static org.apache.spark.sql.functions.max_by;
import static org.apache.spark.sql.functions.struct;
import static org.apache.spark.sql.functions.when;

import io.mssqlcdc.connector.CdcColumns;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.api.java.function.CoGroupFunction;
import org.apache.spark.api.java.function.MapFunction;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * The Spark side of {@link HistoryRules}: the call's bronze rows and the history's state per key
 * (current version, watermark), grouped by key together, and each key's version rows computed by
 * the rules on the executors. The result has the history's columns: the captured ones, then
 * {@link HistoryTable#COLUMNS}; then {@link #DROP}, whether the row is to be deleted.
 */
final class HistoryVersions {
  private static final String WATERMARK = "_mssql_cdc_watermark";
  private static final String CURRENT = "_mssql_cdc_current";
  private static final String PREVIOUS = "_mssql_cdc_previous";
  /** The output's last column: whether the row goes ({@link HistoryRules.Version#drop}); not a history column. */
  static final String DROP = "_mssql_cdc_drop";

  private HistoryVersions() {}

  /**
   * The version rows to MERGE.
   *
   * @param changes the call's bronze rows of this table (changes and the applied snapshot's rows: a whole
   *     snapshot's with the snapshot's LSN as {@code _start_lsn}, a chunked one's with their wave's stamp)
   * @param history the history table as it is (it exists)
   * @param columns bronze's columns (keys resolved)
   * @param rules the version rules
   * @param snapshot the snapshot the call applies; null when none (then only the changes' keys are read)
   */
  static Dataset<Row> compute(Dataset<Row> changes, Dataset<Row> history, BronzeColumns columns, HistoryRules rules,
      HistoryRules.Snapshot snapshot) {
    List<String> captured = columns.capturedNames();
    List<String> keys = columns.keys();
    int n = captured.size();

    List<Column> changeCols = new ArrayList<>();
    captured.forEach(c -> changeCols.add(col(MergeRules.quote(c))));
    changeCols.add(col(CdcColumns.START_LSN));
    changeCols.add(col(CdcColumns.COMMIT_TS));
    changeCols.add(columns.hasCommandId() ? col(CdcColumns.COMMAND_ID).cast("int") : lit(null).cast("int"));
    changeCols.add(col(CdcColumns.SEQVAL));
    changeCols.add(col(CdcColumns.OPERATION).cast("int"));
    Dataset<Row> rows = changes.select(changeCols.toArray(Column[]::new));

    List<Column> image = new ArrayList<>();
    captured.forEach(c -> image.add(col(MergeRules.quote(c))));
    image.add(col(HistoryTable.VALID_FROM));
    image.add(col(HistoryTable.FROM_LSN));
    image.add(col(HistoryTable.IS_DELETED));
    Column[] keyCols = keys.stream().map(k -> col(MergeRules.quote(k))).toArray(Column[]::new);
    // The version the applied snapshot closed with a gap (HistoryRules.apply's previous); NULL when none applied.
    String applied = rules.appliedSnapshot();
    Column closedBySnapshot = applied == null ? lit(false)
        : col(HistoryTable.TO_LSN).equalTo(lit(applied)).and(col(HistoryTable.GAP).equalTo(lit(true)));
    List<Column> closed = new ArrayList<>(image);
    closed.add(col(HistoryTable.VALID_TO));
    Dataset<Row> state = history.groupBy(keyCols).agg(
        max(greatest(col(HistoryTable.FROM_LSN), coalesce(col(HistoryTable.TO_LSN), col(HistoryTable.FROM_LSN))))
            .as(WATERMARK),
        // The value is NULL off the current version too, so no closed version is taken whatever max_by does with
        // NULL orderings.
        max_by(when(col(HistoryTable.VALID_TO).isNull(), struct(image.toArray(Column[]::new))),
            when(col(HistoryTable.VALID_TO).isNull(), col(HistoryTable.FROM_LSN))).as(CURRENT),
        max_by(when(closedBySnapshot, struct(closed.toArray(Column[]::new))),
            when(closedBySnapshot, col(HistoryTable.FROM_LSN))).as(PREVIOUS));
    if (snapshot == null) {
      state = KeyJoin.semi(state, rows, keys, "left_semi");
    }

    int[] keyAt = keys.stream().mapToInt(captured::indexOf).toArray();
    StructType keySchema = new StructType(keys.stream().map(k -> columns.captured().get(captured.indexOf(k)))
        .toArray(StructField[]::new));
    int k = keys.size();
    MapFunction<Row, Row> changeKey = r -> key(r, keyAt);
    int[] stateAt = range(k);
    MapFunction<Row, Row> stateKey = r -> key(r, stateAt);
    StructType out = HistoryTable.creationSchema(columns.captured()).add(DROP, DataTypes.BooleanType, false);
    CoGroupFunction<Row, Row, Row, Row> perKey = (key, cs, st) -> versions(cs, st, n, k, rules, snapshot);
    return rows.groupByKey(changeKey, Encoders.row(keySchema))
        .cogroup(state.groupByKey(stateKey, Encoders.row(keySchema)), perKey, Encoders.row(out));
  }

  private static Iterator<Row> versions(Iterator<Row> cs, Iterator<Row> st, int n, int k, HistoryRules rules,
      HistoryRules.Snapshot snapshot) {
    HistoryRules.Version current = null;
    HistoryRules.Version previous = null;
    String watermark = null;
    if (st.hasNext()) {
      Row s = st.next();
      watermark = s.isNullAt(k) ? null : s.getString(k);
      if (!s.isNullAt(k + 1)) {
        Row c = s.getStruct(k + 1);
        current = new HistoryRules.Version(values(c, n), c.getString(n + 1), (LocalDateTime) c.get(n), null, null,
            !c.isNullAt(n + 2) && c.getBoolean(n + 2), false);
      }
      if (!s.isNullAt(k + 2)) {
        Row p = s.getStruct(k + 2);
        previous = new HistoryRules.Version(values(p, n), p.getString(n + 1), (LocalDateTime) p.get(n),
            rules.appliedSnapshot(), (LocalDateTime) p.get(n + 3), !p.isNullAt(n + 2) && p.getBoolean(n + 2), true);
      }
    }
    List<HistoryRules.Change> changes = new ArrayList<>();
    while (cs.hasNext()) {
      Row r = cs.next();
      changes.add(new HistoryRules.Change(r.getString(n), (LocalDateTime) r.get(n + 1),
          r.isNullAt(n + 2) ? null : r.getInt(n + 2), r.isNullAt(n + 3) ? null : r.getString(n + 3), r.getInt(n + 4),
          values(r, n)));
    }
    List<Row> out = new ArrayList<>();
    for (HistoryRules.Version v : rules.apply(current, previous, watermark, changes, snapshot)) {
      Object[] row = new Object[n + HistoryTable.COLUMNS.size() + 1];
      System.arraycopy(v.values, 0, row, 0, n);
      row[n] = v.validFrom;
      row[n + 1] = v.validTo;
      row[n + 2] = v.fromLsn;
      row[n + 3] = v.toLsn;
      row[n + 4] = v.deleted;
      row[n + 5] = v.gap;
      row[n + 6] = v.drop;
      out.add(RowFactory.create(row));
    }
    return out.iterator();
  }

  private static Object[] values(Row r, int n) {
    Object[] v = new Object[n];
    for (int i = 0; i < n; i++) {
      v[i] = r.get(i);
    }
    return v;
  }

  private static Row key(Row r, int[] at) {
    Object[] v = new Object[at.length];
    for (int i = 0; i < at.length; i++) {
      v[i] = r.get(at[i]);
    }
    return RowFactory.create(v);
  }

  private static int[] range(int k) {
    int[] a = new int[k];
    for (int i = 0; i < k; i++) {
      a[i] = i;
    }
    return a;
  }
}
