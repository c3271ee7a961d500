package io.mssqlcdc.silver;

import static org.apache.spark.sql.functions.expr;

import io.delta.tables.DeltaMergeBuilder;
import io.mssqlcdc.sink.tables.DeltaTables;
import io.mssqlcdc.sink.tables.TableRef;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructField;

/** The history table on Delta: created and given bronze's new columns, and the one MERGE of a call. */
final class HistoryMerge {
  private HistoryMerge() {}

  /** Creates the history for {@code captured} when missing; adds the captured columns it lacks (see {@link SilverMerge#ensure}). */
  static void ensure(SparkSession spark, TableRef history, List<StructField> captured) {
    SilverMerge.ensure(spark, history, HistoryTable.KIND, HistoryTable.creationSchema(captured), HistoryTable.COLUMNS,
        captured, "ApplyHistory");
  }

  /**
   * MERGEs the version rows (one commit): a row matched on {@code (key, __from_lsn)} (a current
   * version closed or updated in place; or, on a replay, the same version) is overwritten, or deleted when the
   * row says it goes ({@link HistoryVersions#DROP}), any other inserted (one that goes: never).
   * Idempotent: the same rows MERGEd twice give the same table.
   *
   * @param empty the history held no row when the call read it (its first call): insert only
   *
   * @return Delta's metrics row
   */
  static Row merge(SparkSession spark, TableRef history, Dataset<Row> versions, List<String> keys,
      List<String> captured, boolean empty) {
    String on = MergeRules.keyMatch(keys) + " AND t." + HistoryTable.FROM_LSN + " = s." + HistoryTable.FROM_LSN;
    List<String> all = new ArrayList<>(captured);
    all.addAll(HistoryTable.COLUMNS);
    DeltaMergeBuilder m = DeltaTables.table(spark, history).as(MergeRules.TARGET)
        .merge(versions.as(MergeRules.SOURCE), expr(on));
    String drop = "s." + HistoryVersions.DROP;
    if (!empty) {
      // A version a later call found was never there (HistoryRules.Version#drop) is deleted; a replay finds it gone.
      m = m.whenMatched(expr(drop)).delete().whenMatched().updateExpr(MergeRules.assignments(all));
    }
    // Into an empty history nothing matches: without the matched clause Delta takes its insert-only path (no source
    // materialization, no rewrite), and the MERGE still inserts no version twice if another call got there first.
    return m.whenNotMatched(expr("NOT " + drop)).insertExpr(MergeRules.assignments(all)).execute().first();
  }
}
