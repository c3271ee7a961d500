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

  private static ControlRowMerge maybeExisting(ControlRowMerge m, boolean existing) {
    return existing ? m.existing() : m;
  }

  @Test
  void theVerdictMovesOnlyForwardAndTheCallersColumnsAlways() {
    scenario(false, "silver.orders");
  }

  @Test
  void anUpdateOfARowReadBeforeKeepsTheSameRulesAndAMissingRowIsMerged() {
    // A name that needs escaping in a SQL literal.
    scenario(true, "silver.o'rders\\x");
  }

  private void scenario(boolean existing, String table) {
    String path = tmp.resolve("control").toString();
    Finalization.ensureControlTable(spark, path);
    TableRef control = TableRef.of(path);
    String lsnA = "0x0000002A000000100003";
    String lsnB = "0x0000002B000000100003";
    ControlRowMerge.row("other").set("applied_lsn", DataTypes.StringType, lsnB).execute(spark, control, "test");

    // Inserted without a verdict: NULL verdict columns (with existing(): the UPDATE finds no row, the MERGE runs).
    maybeExisting(ControlRowMerge.row(table).set("applied_lsn", DataTypes.StringType, lsnA)
        .set("snapshot_wave", DataTypes.IntegerType, 2), existing).execute(spark, control, "test");
    assertThat(lastOperation(control)).isEqualTo("MERGE");
    Row r = row(control, table);
    assertThat(r.isNullAt(0)).isTrue();
    assertThat(r.getString(3)).isEqualTo(lsnA);
    assertThat(r.getInt(4)).isEqualTo(2);

    // A verdict on the NULL one: written, the end offset's commit time as UTC without zone.
    long before = DeltaTables.version(spark, control);
    maybeExisting(ControlRowMerge.row(table).set("applied_lsn", DataTypes.StringType, lsnB)
        .set("snapshot_wave", DataTypes.IntegerType, null)
        .verdict(T.plusHours(1), end(lsnB, "2026-03-01T11:20:00Z")), existing).execute(spark, control, "test");
    assertThat(DeltaTables.version(spark, control)).isEqualTo(before + 1); // one commit
    assertThat(lastOperation(control)).isEqualTo(existing ? "UPDATE" : "MERGE");
    r = row(control, table);
    assertThat(r.get(0)).isEqualTo(T.plusHours(1));
    assertThat(r.getString(1)).isEqualTo(lsnB);
    assertThat(r.get(2)).isEqualTo(LocalDateTime.of(2026, 3, 1, 11, 20));
    assertThat(r.isNullAt(4)).isTrue();

    // An older candidate: the verdict stays, the caller's column still moves.
    maybeExisting(ControlRowMerge.row(table).set("applied_lsn", DataTypes.StringType, lsnA)
        .set("snapshot_wave", DataTypes.IntegerType, 7)
        .verdict(T, end(lsnA, "2026-03-01T10:05:00Z")), existing).execute(spark, control, "test");
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
}
