package io.mssqlcdc.finalization;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.connector.CdcOffset;
import io.mssqlcdc.lsn.Lsn;
import io.mssqlcdc.sink.SharedDeltaSpark;
import io.mssqlcdc.sink.tables.DeltaTables;
import io.mssqlcdc.sink.tables.TableRef;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDateTime;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The one writer of a control row: the verdict only forward, the caller's columns every time, one
 * commit; by MERGE, or by UPDATE when the caller read the row ({@code existing()}), falling back to
 * the MERGE when the row is missing.
 */
@Tag("spark")
class ControlRowMergeTest {
  private static final LocalDateTime T = LocalDateTime.of(2026, 3, 1, 10, 0);

  @TempDir Path tmp;
  SparkSession spark = SharedDeltaSpark.spark();

  private static CdcOffset end(String lsn, String commitTs) {
    return CdcOffset.of(Lsn.parse(lsn), Instant.parse(commitTs), null);
  }

  private Row row(TableRef control, String table) {
    List<Row> rows = DeltaTables.read(spark, control).where(functions.col("table_name").equalTo(table))
        .select("finalized_until", "end_lsn", "end_commit_ts", "applied_lsn", "snapshot_wave").collectAsList();
    assertThat(rows).hasSize(1);
    return rows.get(0);
  }

  private String lastOperation(TableRef control) {
    return DeltaTables.table(spark, control).history(1).select("operation").first().getString(0);
  }

  /** How a scenario writes: MERGE, UPDATE of a row read, or that UPDATE prepared ahead and committed after. */
  private enum Mode { MERGE, UPDATE, PREPARED, INSERT }

  private Row write(ControlRowMerge m, Mode mode, TableRef control) {
    return switch (mode) {
      case MERGE -> m.execute(spark, control, "test");
      case UPDATE -> m.existing().execute(spark, control, "test");
      case PREPARED, INSERT -> {
        ControlRowMerge.Prepared p = (mode == Mode.PREPARED ? m.existing() : m).prepare(spark, control, "test");
        assertThat(p.ahead()).isTrue();
        Row written = p.commit();
        assertThat(p.committedAhead()).isTrue();
        yield written;
      }
    };
  }

  @Test
  void theVerdictMovesOnlyForwardAndTheCallersColumnsAlways() {
    scenario(Mode.MERGE, "silver.orders");
  }

  @Test
  void anUpdateOfARowReadBeforeKeepsTheSameRulesAndAMissingRowIsMerged() {
    // A name that needs escaping in a SQL literal.
    scenario(Mode.UPDATE, "silver.o'rders\\x");
  }

  @Test
  void anUpdatePreparedAheadKeepsTheSameRules() {
    scenario(Mode.PREPARED, "silver.o'rders\\x");
  }

  private void scenario(Mode mode, String table) {
    boolean existing = mode != Mode.MERGE;
    String path = tmp.resolve("control").toString();
    Finalization.ensureControlTable(spark, path);
    TableRef control = TableRef.of(path);
    String lsnA = "0x0000002A000000100003";
    String lsnB = "0x0000002B000000100003";
    ControlRowMerge.row("other").set("applied_lsn", DataTypes.StringType, lsnB).execute(spark, control, "test");

    // Inserted without a verdict: NULL verdict columns (with existing(): the UPDATE finds no row, the MERGE runs;
    // prepared without existing(): the insert of a row no file holds, an append).
    write(ControlRowMerge.row(table).set("applied_lsn", DataTypes.StringType, lsnA)
        .set("snapshot_wave", DataTypes.IntegerType, 2), mode == Mode.PREPARED ? Mode.INSERT : mode, control);
    assertThat(lastOperation(control)).isEqualTo(mode == Mode.PREPARED ? "WRITE" : "MERGE");
    Row r = row(control, table);
    assertThat(r.isNullAt(0)).isTrue();
    assertThat(r.getString(3)).isEqualTo(lsnA);
    assertThat(r.getInt(4)).isEqualTo(2);

    // A verdict on the NULL one: written, the end offset's commit time as UTC without zone.
    long before = DeltaTables.version(spark, control);
    write(ControlRowMerge.row(table).set("applied_lsn", DataTypes.StringType, lsnB)
        .set("snapshot_wave", DataTypes.IntegerType, null)
        .verdict(T.plusHours(1), end(lsnB, "2026-03-01T11:20:00Z")), mode, control);
    assertThat(DeltaTables.version(spark, control)).isEqualTo(before + 1); // one commit
    assertThat(lastOperation(control)).isEqualTo(existing ? "UPDATE" : "MERGE");
    r = row(control, table);
    assertThat(r.get(0)).isEqualTo(T.plusHours(1));
    assertThat(r.getString(1)).isEqualTo(lsnB);
    assertThat(r.get(2)).isEqualTo(LocalDateTime.of(2026, 3, 1, 11, 20));
    assertThat(r.isNullAt(4)).isTrue();

    // An older candidate: the verdict stays, the caller's column still moves.
    write(ControlRowMerge.row(table).set("applied_lsn", DataTypes.StringType, lsnA)
        .set("snapshot_wave", DataTypes.IntegerType, 7)
        .verdict(T, end(lsnA, "2026-03-01T10:05:00Z")), mode, control);
    r = row(control, table);
    assertThat(r.get(0)).isEqualTo(T.plusHours(1));
    assertThat(r.getString(1)).isEqualTo(lsnB);
    assertThat(r.get(2)).isEqualTo(LocalDateTime.of(2026, 3, 1, 11, 20));
    assertThat(r.getString(3)).isEqualTo(lsnA);
    assertThat(r.getInt(4)).isEqualTo(7);
    assertThat(row(control, "other").getString(3)).isEqualTo(lsnB); // the other row untouched

    // The verdict alone (Finalization.advance's MERGE): nothing affected when not forward.
    Row m = ControlRowMerge.row(table).verdict(T, end(lsnA, "2026-03-01T10:05:00Z"))
        .execute(spark, control, "test");
    assertThat(m.<Long>getAs("num_affected_rows")).isZero();

    assertThatThrownBy(() -> ControlRowMerge.row("x").set("finalized_until", DataTypes.TimestampNTZType, T))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("finalized_until");
    assertThatThrownBy(() -> ControlRowMerge.row("x").execute(spark, control, "test"))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("nothing to write");
  }

  @Test
  void aPreparedUpdateThatConflictsIsWrittenAgainAndTheNewerVerdictStays() {
    String path = tmp.resolve("control").toString();
    Finalization.ensureControlTable(spark, path);
    TableRef control = TableRef.of(path);
    String lsnA = "0x0000002A000000100003";
    String lsnB = "0x0000002B000000100003";
    String lsnC = "0x0000002C000000100003";
    ControlRowMerge.row("bronze").verdict(T, end(lsnA, "2026-03-01T10:05:00Z")).execute(spark, control, "test");
    ControlRowMerge.row("silver").set("applied_lsn", DataTypes.StringType, lsnA).execute(spark, control, "test");

    // Nothing committed in between: the files written ahead are the commit (one, an UPDATE).
    ControlRowMerge.Prepared p = ControlRowMerge.row("silver").set("applied_lsn", DataTypes.StringType, lsnB)
        .existing().prepare(spark, control, "test");
    assertThat(p.ahead()).isTrue();
    long before = DeltaTables.version(spark, control);
    p.commit();
    assertThat(p.committedAhead()).isTrue();
    assertThat(DeltaTables.version(spark, control)).isEqualTo(before + 1);
    assertThat(lastOperation(control)).isEqualTo("UPDATE");
    assertThat(row(control, "silver").getString(3)).isEqualTo(lsnB);

    // Another row's commit in between (a tracker's verdict): on a table without partitions Delta counts it as a
    // conflict, as for its own UPDATE: nothing of the files written ahead is committed, the row is written again.
    p = ControlRowMerge.row("silver").set("applied_lsn", DataTypes.StringType, lsnC).existing()
        .prepare(spark, control, "test");
    ControlRowMerge.row("bronze").verdict(T.plusHours(1), end(lsnB, "2026-03-01T11:05:00Z"))
        .execute(spark, control, "test");
    p.commit();
    assertThat(p.committedAhead()).isFalse();
    assertThat(row(control, "silver").getString(3)).isEqualTo(lsnC);
    assertThat(row(control, "bronze").get(0)).isEqualTo(T.plusHours(1));

    // A commit that rewrote silver's row in between (its verdict moved further by another writer): the files
    // written ahead hold the row as it was, so they conflict; the row is written again, keeping the newer verdict.
    p = ControlRowMerge.row("silver").set("applied_lsn", DataTypes.StringType, lsnA)
        .verdict(T.plusHours(1), end(lsnB, "2026-03-01T11:05:00Z")).existing().prepare(spark, control, "test");
    assertThat(p.ahead()).isTrue();
    ControlRowMerge.row("silver").verdict(T.plusHours(3), end(lsnC, "2026-03-01T13:05:00Z"))
        .execute(spark, control, "test");
    p.commit();
    assertThat(p.committedAhead()).isFalse();
    Row r = row(control, "silver");
    assertThat(r.get(0)).isEqualTo(T.plusHours(3));
    assertThat(r.getString(1)).isEqualTo(lsnC);
    assertThat(r.getString(3)).isEqualTo(lsnA);

    // A row not there (deleted since the caller read it): nothing prepared, the MERGE inserts it.
    p = ControlRowMerge.row("gold").set("applied_lsn", DataTypes.StringType, lsnB).existing()
        .prepare(spark, control, "test");
    assertThat(p.ahead()).isFalse();
    p.commit();
    assertThat(row(control, "gold").getString(3)).isEqualTo(lsnB);

    // A new row prepared as an insert while another writer inserts it: a conflict, the MERGE writes it once.
    p = ControlRowMerge.row("silver2").set("applied_lsn", DataTypes.StringType, lsnC).prepare(spark, control, "test");
    assertThat(p.ahead()).isTrue();
    ControlRowMerge.row("silver2").set("applied_lsn", DataTypes.StringType, lsnA).execute(spark, control, "test");
    p.commit();
    assertThat(p.committedAhead()).isFalse();
    assertThat(row(control, "silver2").getString(3)).isEqualTo(lsnC); // one row (row() checks), the call's value
    // A new row whose key a file holds after all: the MERGE decides.
    assertThat(ControlRowMerge.row("silver2").set("applied_lsn", DataTypes.StringType, lsnA)
        .prepare(spark, control, "test").ahead()).isFalse();
    // Names longer than the 32 characters Delta keeps in a file's statistics, sharing that prefix: every file may
    // hold the key by its statistics; a read of them says none does, and the insert is prepared ahead.
    String prefix = "abfss://lake@account.dfs.core.windows.net/silver/";
    ControlRowMerge.row(prefix + "orders").set("applied_lsn", DataTypes.StringType, lsnA)
        .execute(spark, control, "test");
    p = ControlRowMerge.row(prefix + "customers").set("applied_lsn", DataTypes.StringType, lsnB)
        .prepare(spark, control, "test");
    assertThat(p.ahead()).isTrue();
    p.commit();
    assertThat(p.committedAhead()).isTrue();
    assertThat(row(control, prefix + "customers").getString(3)).isEqualTo(lsnB);
    assertThat(row(control, prefix + "orders").getString(3)).isEqualTo(lsnA);
    // And the UPDATE of one of them rewrites what the statistics cannot tell apart, every other row kept.
    p = ControlRowMerge.row(prefix + "orders").set("applied_lsn", DataTypes.StringType, lsnC).existing()
        .prepare(spark, control, "test");
    p.commit();
    assertThat(p.committedAhead()).isTrue();
    assertThat(row(control, prefix + "orders").getString(3)).isEqualTo(lsnC);
    assertThat(row(control, prefix + "customers").getString(3)).isEqualTo(lsnB);
    assertThat(DeltaTables.read(spark, control).count()).isEqualTo(6);

    // A table feature the rewrite leaves to Delta (the change data feed: the UPDATE writes its change files).
    spark.sql("ALTER TABLE delta.`" + path + "` SET TBLPROPERTIES (delta.enableChangeDataFeed = true)");
    p = ControlRowMerge.row("silver").set("applied_lsn", DataTypes.StringType, lsnB).existing()
        .prepare(spark, control, "test");
    assertThat(p.ahead()).isFalse();
    p.commit();
    assertThat(row(control, "silver").getString(3)).isEqualTo(lsnB);
    assertThat(lastOperation(control)).isEqualTo("UPDATE");
  }
}
