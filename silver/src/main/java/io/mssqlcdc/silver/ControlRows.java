package io.mssqlcdc.silver;

import static io.mssqlcdc.finalization.ControlTable.APPLIED_LSN;
import static io.mssqlcdc.finalization.ControlTable.END_COMMIT_TS;
import static io.mssqlcdc.finalization.ControlTable.END_LSN;
import static io.mssqlcdc.finalization.ControlTable.FINALIZED_UNTIL;
import static io.mssqlcdc.finalization.ControlTable.OPEN_SNAPSHOT_LSN;
import static io.mssqlcdc.finalization.ControlTable.SNAPSHOT_LSN;
import static io.mssqlcdc.finalization.ControlTable.SNAPSHOT_WAVE;
import static io.mssqlcdc.finalization.ControlTable.TABLE_NAME;
import static org.apache.spark.sql.functions.col;

import io.mssqlcdc.sink.tables.DeltaConflicts;
import io.mssqlcdc.sink.tables.DeltaTables;
import io.mssqlcdc.sink.tables.TableRef;
import java.time.LocalDateTime;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * Silver's use of the control table (reference-behaviour §14.4, §16 steps 1 and 13): read bronze's
 * verdict and silver's position (before bronze), and record silver's position. The position columns
 * are silver's alone; the verdict columns are written only by {@code Finalization.advance}, so a
 * row this class inserts has a NULL verdict.
 */
final class ControlRows {
  private static final StructType POSITION = new StructType()
      .add(TABLE_NAME, DataTypes.StringType)
      .add(APPLIED_LSN, DataTypes.StringType)
      .add(SNAPSHOT_LSN, DataTypes.StringType)
      .add(OPEN_SNAPSHOT_LSN, DataTypes.StringType)
      .add(SNAPSHOT_WAVE, DataTypes.IntegerType);

  /** Bronze's verdict row: the end offset that last moved it; both null when it has none. */
  record BronzeVerdict(String endLsn, LocalDateTime endCommitTs) {
    static final BronzeVerdict NONE = new BronzeVerdict(null, null);
  }

  /** What a call reads first. */
  record Read(BronzeVerdict bronze, SilverPosition silver) {}

  private ControlRows() {}

  /** Bronze's verdict and silver's position, in one read of the control table. */
  static Read read(SparkSession spark, TableRef control, String bronze, String silver) {
    List<Row> rows = DeltaTables.read(spark, control)
        .where(col(TABLE_NAME).isin(bronze, silver))
        .select(TABLE_NAME, END_LSN, END_COMMIT_TS, APPLIED_LSN, SNAPSHOT_LSN, OPEN_SNAPSHOT_LSN, SNAPSHOT_WAVE,
            FINALIZED_UNTIL)
        .collectAsList();
    BronzeVerdict verdict = BronzeVerdict.NONE;
    SilverPosition position = SilverPosition.NONE;
    for (Row r : rows) {
      if (bronze.equals(r.getString(0))) {
        verdict = new BronzeVerdict(str(r, 1), r.isNullAt(2) ? null : (LocalDateTime) r.get(2));
      } else {
        position = new SilverPosition(str(r, 3), str(r, 4), str(r, 5), r.isNullAt(6) ? null : r.getInt(6),
            r.isNullAt(7) ? null : (LocalDateTime) r.get(7));
      }
    }
    return new Read(verdict, position);
  }

  /**
   * Records {@code next} as {@code silver}'s position: all four columns, every time (NULLs clear an
   * open snapshot's progress at its completion); retried when it loses a race with another commit
   * on the control table (trackers and other silver jobs MERGE into it too).
   */
  static void write(SparkSession spark, TableRef control, String silver, SilverPosition next) {
    Dataset<Row> source = spark.createDataFrame(List.of(RowFactory.create(silver, next.appliedLsn(),
        next.snapshotLsn(), next.openSnapshotLsn(), next.snapshotWave())), POSITION);
    Map<String, String> set = new LinkedHashMap<>();
    for (String c : List.of(APPLIED_LSN, SNAPSHOT_LSN, OPEN_SNAPSHOT_LSN, SNAPSHOT_WAVE)) {
      set.put(c, "s." + c);
    }
    Map<String, String> insert = new LinkedHashMap<>();
    insert.put(TABLE_NAME, "s." + TABLE_NAME);
    insert.putAll(set);
    DeltaConflicts.retrying("recording the position of " + silver + " in " + control,
        () -> DeltaTables.table(spark, control).as("t")
            .merge(source.as("s"), "t." + TABLE_NAME + " = s." + TABLE_NAME)
            .whenMatched().updateExpr(set)
            .whenNotMatched().insertExpr(insert)
            .execute());
  }

  private static String str(Row r, int i) {
    return r.isNullAt(i) ? null : r.getString(i);
  }
}
