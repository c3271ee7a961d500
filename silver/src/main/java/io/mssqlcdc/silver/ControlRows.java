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

import io.mssqlcdc.connector.CdcOffset;
import io.mssqlcdc.finalization.ControlRowMerge;
import io.mssqlcdc.finalization.Finalization;
import io.mssqlcdc.finalization.Granularity;
import io.mssqlcdc.lsn.Lsn;
import io.mssqlcdc.sink.tables.DeltaTables;
import io.mssqlcdc.sink.tables.DriverRead;
import io.mssqlcdc.sink.tables.TableRef;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;

/**
 * Silver's use of the control table (reference-behaviour §14.4, §16 steps 1, 13 and 14): read
 * bronze's verdict and silver's position (before bronze), and record silver's position with its
 * verdict in one commit. The position columns are silver's alone; the verdict columns are written
 * by finalization's {@link ControlRowMerge} (only forward, as {@code Finalization.advance} writes
 * them), so a row this class inserts without a verdict has a NULL one.
 */
final class ControlRows {
  /** Bronze's verdict row: the end offset that last moved it; both null when it has none. */
  record BronzeVerdict(String endLsn, LocalDateTime endCommitTs) {
    static final BronzeVerdict NONE = new BronzeVerdict(null, null);
  }

  /**
   * What a call reads first.
   *
   * @param silverRow whether the control table has a row for silver (its position may still be all NULL)
   */
  record Read(BronzeVerdict bronze, SilverPosition silver, boolean silverRow) {}

  private ControlRows() {}

  private static final List<String> COLUMNS = List.of(TABLE_NAME, END_LSN, END_COMMIT_TS, APPLIED_LSN, SNAPSHOT_LSN,
      OPEN_SNAPSHOT_LSN, SNAPSHOT_WAVE, FINALIZED_UNTIL);

  /**
   * Bronze's verdict and silver's position, in one read of the control table: on the driver (Delta Kernel, no Spark
   * job: {@link DriverRead}) where it can, else with Spark.
   */
  static Read read(SparkSession spark, TableRef control, String bronze, String silver) {
    List<Map<String, Object>> rows = DriverRead.rowsWhere(spark, control, TABLE_NAME,
        new java.util.HashSet<>(List.of(bronze, silver)), COLUMNS).orElseGet(() -> sparkRead(spark, control, bronze,
        silver));
    BronzeVerdict verdict = BronzeVerdict.NONE;
    SilverPosition position = SilverPosition.NONE;
    boolean silverRow = false;
    for (Map<String, Object> r : rows) {
      if (bronze.equals(r.get(TABLE_NAME))) {
        verdict = new BronzeVerdict((String) r.get(END_LSN), (LocalDateTime) r.get(END_COMMIT_TS));
      } else {
        silverRow = true;
        position = new SilverPosition((String) r.get(APPLIED_LSN), (String) r.get(SNAPSHOT_LSN),
            (String) r.get(OPEN_SNAPSHOT_LSN), (Integer) r.get(SNAPSHOT_WAVE), (LocalDateTime) r.get(FINALIZED_UNTIL));
      }
    }
    return new Read(verdict, position, silverRow);
  }

  /** The two rows read with Spark, as {@link DriverRead} gives them: column name to value. */
  private static List<Map<String, Object>> sparkRead(SparkSession spark, TableRef control, String bronze,
      String silver) {
    List<Map<String, Object>> out = new java.util.ArrayList<>();
    for (Row r : DeltaTables.read(spark, control).where(col(TABLE_NAME).isin(bronze, silver))
        .select(COLUMNS.stream().map(org.apache.spark.sql.functions::col).toArray(org.apache.spark.sql.Column[]::new))
        .collectAsList()) {
      Map<String, Object> m = new java.util.HashMap<>();
      for (int i = 0; i < COLUMNS.size(); i++) {
        m.put(COLUMNS.get(i), r.get(i));
      }
      out.add(m);
    }
    return out;
  }

  /**
   * A verdict recorded with the position: silver's new {@code finalized_until} and bronze's end
   * offset that implies it (written to {@code end_lsn}/{@code end_commit_ts}, as
   * {@code Finalization.advance} writes them).
   */
  record Verdict(LocalDateTime finalizedUntil, CdcOffset end) {}

  /**
   * Records {@code next} as {@code silver}'s position: all four columns, every time (NULLs clear an
   * open snapshot's progress at its completion); with {@code verdict} (null: none) its verdict in
   * the same commit, only forward ({@link ControlRowMerge}: the verdict columns, condition and
   * commit-time conversion {@code Finalization.advance} uses). Retried when it loses a race with
   * another commit on the control table (trackers and other silver jobs MERGE into it too).
   *
   * @param existing whether the call read a row for {@code silver}: then an UPDATE of it (fewer
   *     Spark jobs), the MERGE only when the row went missing meanwhile ({@link ControlRowMerge#existing})
   */
  static void write(SparkSession spark, TableRef control, String silver, SilverPosition next, Verdict verdict,
      boolean existing) {
    row(silver, next, verdict, existing).execute(spark, control, what(silver, control));
  }

  /** What {@link #write} writes, to be written by the caller (e.g. prepared ahead: {@link PositionAhead}). */
  static ControlRowMerge row(String silver, SilverPosition next, Verdict verdict, boolean existing) {
    ControlRowMerge m = ControlRowMerge.row(silver)
        .set(APPLIED_LSN, DataTypes.StringType, next.appliedLsn())
        .set(SNAPSHOT_LSN, DataTypes.StringType, next.snapshotLsn())
        .set(OPEN_SNAPSHOT_LSN, DataTypes.StringType, next.openSnapshotLsn())
        .set(SNAPSHOT_WAVE, DataTypes.IntegerType, next.snapshotWave());
    if (verdict != null) {
      m = m.verdict(verdict.finalizedUntil(), verdict.end());
    }
    if (existing) {
      m = m.existing();
    }
    return m;
  }

  /** The write's name in a conflict's error. */
  static String what(String silver, TableRef control) {
    return "recording the position of " + silver + " in " + control;
  }

  /**
   * The verdict a call records with its position: bronze's verdict as read first ({@code bronze}, before
   * bronze was pinned), as a candidate of {@code granularity}, when it is after {@code current}; null
   * when it does not move forward (or bronze has none).
   */
  static Verdict advance(BronzeVerdict bronze, LocalDateTime current, Granularity granularity) {
    if (bronze.endLsn() == null || bronze.endCommitTs() == null) {
      return null;
    }
    CdcOffset end = CdcOffset.of(Lsn.parse(bronze.endLsn()), bronze.endCommitTs().toInstant(ZoneOffset.UTC), null);
    LocalDateTime cand = Finalization.candidate(end, granularity.text()).orElse(null);
    return cand != null && (current == null || cand.isAfter(current)) ? new Verdict(cand, end) : null;
  }
}
