package io.mssqlcdc.finalization;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.connector.CdcOffset;
import io.mssqlcdc.errors.CdcStateException;
import io.mssqlcdc.lsn.Lsn;
import io.mssqlcdc.sink.SharedDeltaSpark;
import io.mssqlcdc.sink.tables.DeltaTables;
import io.mssqlcdc.sink.tables.TableRef;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** advance / finalizedUntil / isFinal against a real Delta control table. */
@Tag("slow")
@Tag("spark")
class AdvanceTest {
  @TempDir Path tmp;
  SparkSession spark = SharedDeltaSpark.spark();
  String control;

  @BeforeEach
  void setUp() {
    control = tmp.resolve("control").toString();
  }

  /** An end offset at LSN {@code n} committed at {@code commitTs} (UTC). */
  static CdcOffset offset(long n, String commitTs) {
    Lsn lsn = Lsn.parse(String.format("0x%08X%08X%04X", 42, n, 1));
    return CdcOffset.of(lsn, Instant.parse(commitTs + "Z"), "dbo.orders");
  }

  private List<Row> rows() {
    return DeltaTables.read(spark, TableRef.of(control)).orderBy("table_name").collectAsList();
  }

  @Test
  void theVerdictMovesForwardAndNeverBack() {
    assertThat(Finalization.advance(spark, control, "bronze.orders", offset(1, "2026-03-01T10:42:17.123"), "hour"))
        .contains(LocalDateTime.of(2026, 3, 1, 10, 0));
    Row r = rows().get(0);
    assertThat(r.<String>getAs("table_name")).isEqualTo("bronze.orders");
    assertThat(r.<String>getAs("end_lsn")).isEqualTo("0x0000002A000000010001");
    assertThat(r.<LocalDateTime>getAs("end_commit_ts")).isEqualTo(LocalDateTime.of(2026, 3, 1, 10, 42, 17, 123_000_000));
    LocalDateTime firstUpdate = r.getAs("updated_at");
    assertThat(firstUpdate).isCloseTo(LocalDateTime.now(ZoneOffset.UTC), org.assertj.core.api.Assertions.within(5,
        java.time.temporal.ChronoUnit.MINUTES));

    long version = DeltaTables.version(spark, TableRef.of(control));
    // An older offset, and one in the same period: nothing moves, the stored verdict is returned.
    assertThat(Finalization.advance(spark, control, "bronze.orders", offset(0, "2026-03-01T09:59:59.999"), "hour"))
        .contains(LocalDateTime.of(2026, 3, 1, 10, 0));
    assertThat(Finalization.advance(spark, control, "bronze.orders", offset(2, "2026-03-01T10:59:00.000"), "hour"))
        .contains(LocalDateTime.of(2026, 3, 1, 10, 0));
    assertThat(rows().get(0).<String>getAs("end_lsn")).isEqualTo("0x0000002A000000010001");
    assertThat(DeltaTables.version(spark, TableRef.of(control))).isEqualTo(version); // no-op MERGEs commit nothing

    assertThat(Finalization.advance(spark, control, "bronze.orders", offset(3, "2026-03-01T11:00:00.000"), "hour"))
        .contains(LocalDateTime.of(2026, 3, 1, 11, 0));
    assertThat(rows()).hasSize(1);
    assertThat(rows().get(0).<String>getAs("end_lsn")).isEqualTo("0x0000002A000000030001");
  }

  @Test
  void noOffsetOrNoCommitTimeWritesNothingAndReturnsTheStoredVerdict() {
    assertThat(Finalization.advance(spark, control, "bronze.orders", null, "minute")).isEmpty();
    assertThat(rows()).isEmpty(); // the control table is created, with no row
    Finalization.advance(spark, control, "bronze.orders", offset(1, "2026-03-01T10:42:17.123"), "minute");
    CdcOffset noTime = CdcOffset.of(Lsn.parse("0x0000002A000000090001"), null, null);
    assertThat(Finalization.advance(spark, control, "bronze.orders", noTime, "minute"))
        .contains(LocalDateTime.of(2026, 3, 1, 10, 42));
  }

  @Test
  void aRowSilverCreatedWithoutAVerdictGetsOne() {
    Finalization.ensureControlTable(spark, control);
    spark.sql("INSERT INTO delta.`" + control + "` (table_name, applied_lsn) VALUES ('silver.orders',"
        + " '0x0000002A000000050001')");
    assertThat(Finalization.finalizedUntil(spark, control, "silver.orders")).isEmpty();
    assertThat(Finalization.advance(spark, control, "silver.orders", offset(5, "2026-03-01T10:42:17.123"), "day"))
        .contains(LocalDateTime.of(2026, 3, 1, 0, 0));
    Row r = rows().get(0);
    assertThat(r.<String>getAs("applied_lsn")).isEqualTo("0x0000002A000000050001"); // silver's columns untouched
    assertThat(rows()).hasSize(1);
  }

  @Test
  void tablesHaveTheirOwnVerdicts() {
    Finalization.advance(spark, control, "bronze.orders", offset(1, "2026-03-01T10:42:17.123"), "hour");
    Finalization.advance(spark, control, "bronze.customers", offset(1, "2026-03-01T08:05:00.000"), "minute");
    assertThat(Finalization.finalizedUntil(spark, control, "bronze.orders")).contains(LocalDateTime.of(2026, 3, 1, 10, 0));
    assertThat(Finalization.finalizedUntil(spark, control, "bronze.customers"))
        .contains(LocalDateTime.of(2026, 3, 1, 8, 5));
    assertThat(Finalization.finalizedUntil(spark, control, "BRONZE.ORDERS")).isEmpty(); // names match exactly
    assertThat(Finalization.finalizedUntil(spark, control, "bronze.unknown")).isEmpty();
  }

  @Test
  void aPeriodIsFinalExactlyWhenItsEndIsAtOrBeforeTheVerdictWhateverTheInputsZone() {
    Finalization.advance(spark, control, "t", offset(1, "2026-03-01T10:42:17.123"), "hour"); // verdict 10:00 UTC
    assertThat(Finalization.isFinal(spark, control, "t", LocalDateTime.of(2026, 3, 1, 10, 0))).isTrue();
    assertThat(Finalization.isFinal(spark, control, "t", LocalDateTime.of(2026, 3, 1, 10, 0, 0, 1000))).isFalse();
    assertThat(Finalization.isFinal(spark, control, "t", LocalDateTime.of(2026, 3, 1, 11, 0))).isFalse();
    // 12:00 in Athens (+02:00) is 10:00 UTC: final; 11:00 in Lisbon (+00:00 in March) is not.
    assertThat(Finalization.isFinal(spark, control, "t", OffsetDateTime.parse("2026-03-01T12:00:00+02:00"))).isTrue();
    assertThat(Finalization.isFinal(spark, control, "t",
        ZonedDateTime.of(2026, 3, 1, 11, 0, 0, 0, ZoneId.of("Europe/Lisbon")))).isFalse();
    assertThat(Finalization.isFinal(spark, control, "t",
        ZonedDateTime.of(2026, 3, 1, 7, 0, 0, 0, ZoneId.of("America/Sao_Paulo")))).isTrue();
    assertThat(Finalization.isFinal(spark, control, "t", Instant.parse("2026-03-01T10:00:00.000001Z"))).isFalse();
    assertThat(Finalization.isFinal(spark, control, "t", "2026-03-01T05:00:00-05:00")).isTrue();
    assertThat(Finalization.isFinal(spark, control, "t", "2026-03-01T06:00:00-05:00")).isFalse();
    assertThat(Finalization.isFinal(spark, control, "t", "2026-03-01")).isTrue();
    assertThat(Finalization.isFinal(spark, control, "t", "2026-03-02")).isFalse();
    assertThat(Finalization.isFinal(spark, control, "other", "1970-01-01")).isFalse(); // no verdict: nothing final
  }

  @Test
  void readingAMissingControlTableSaysWhatToCheck() {
    assertThatThrownBy(() -> Finalization.finalizedUntil(spark, control, "t")).isInstanceOf(CdcStateException.class)
        .hasMessage("MSSQL_CDC-762: The control table " + control + " does not exist, so no verdict can be read from it."
            + " It is created by the first Finalization.advance or Finalization.track on it (or by a stream started"
            + " with tracking): check the name is the one the pipeline writes, spelled the same way, and that the"
            + " pipeline has started.");
    assertThatThrownBy(() -> Finalization.isFinal(spark, control, "t", "2026-03-01")).hasMessageContaining("MSSQL_CDC-762");
    assertThatThrownBy(() -> Finalization.advance(spark, " ", "t", null, "hour"))
        .hasMessage("MSSQL_CDC-765: controlTable must be the Delta table (name or path) that holds the verdicts, e.g."
            + " ops.table_finalization, not ' '.");
    assertThatThrownBy(() -> Finalization.advance(spark, control, null, null, "hour"))
        .hasMessageStartingWith("MSSQL_CDC-765: tableName must be the table the verdict is about");
    assertThatThrownBy(() -> Finalization.advance(spark, control, "t", null, "weekly"))
        .hasMessageStartingWith("MSSQL_CDC-760: granularity must be one of ('minute', 'hour', 'day'), not 'weekly'.");
  }

  @Test
  void twoConcurrentWritersNeverMoveAVerdictBackwards() throws Exception {
    Finalization.ensureControlTable(spark, control);
    // Writer A offers minutes 1, 3, 5, ... and writer B 0, 2, 4, ..., B also going back now and then,
    // both on the same table's row; C writes another table's row at the same time (OSS Delta fails
    // concurrent MERGEs on other rows too). A MERGE that still loses after advance's minute of
    // retries (a loaded machine) throws; the writer tries again, as a tracker does on its next progress.
    int n = 3;
    List<CdcOffset> a = new ArrayList<>();
    List<CdcOffset> b = new ArrayList<>();
    List<CdcOffset> c = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      a.add(offset(2L * i + 1, String.format("2026-03-01T10:%02d:30.000", 2 * i + 1)));
      b.add(offset(2L * i, String.format("2026-03-01T10:%02d:30.000", i % 3 == 2 ? 0 : 2 * i)));
      c.add(offset(i, String.format("2026-03-01T11:%02d:00.000", i)));
    }
    CountDownLatch go = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(3);
    try {
      List<Future<List<Optional<LocalDateTime>>>> done = new ArrayList<>();
      for (var entry : List.of(List.of("t", a), List.of("t", b), List.of("u", c))) {
        String table = (String) entry.get(0);
        @SuppressWarnings("unchecked")
        List<CdcOffset> offsets = (List<CdcOffset>) entry.get(1);
        done.add(pool.submit(() -> {
          go.await();
          List<Optional<LocalDateTime>> seen = new ArrayList<>();
          for (CdcOffset o : offsets) {
            while (true) {
              try {
                seen.add(Finalization.advance(spark, control, table, o, "minute"));
                break;
              } catch (RuntimeException e) {
                if (!io.mssqlcdc.sink.tables.DeltaConflicts.isConflict(e)) {
                  throw e;
                }
              }
            }
          }
          return seen;
        }));
      }
      go.countDown();
      for (Future<List<Optional<LocalDateTime>>> f : done) {
        List<Optional<LocalDateTime>> seen = f.get(10, TimeUnit.MINUTES);
        // What each writer reads back never goes backwards either.
        assertThat(seen.stream().map(Optional::orElseThrow).toList()).isSorted();
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(Finalization.finalizedUntil(spark, control, "t")).contains(LocalDateTime.of(2026, 3, 1, 10, 2 * n - 1));
    assertThat(Finalization.finalizedUntil(spark, control, "u")).contains(LocalDateTime.of(2026, 3, 1, 11, n - 1));
    // Every version of the control table: one row per table, and the verdict of each never older than before.
    TableRef ref = TableRef.of(control);
    long last = DeltaTables.version(spark, ref);
    LocalDateTime prevT = null;
    LocalDateTime prevU = null;
    for (long v = 0; v <= last; v++) {
      List<Row> at = DeltaTables.readVersion(spark, ref, v).orderBy("table_name").collectAsList();
      assertThat(at.stream().map(r -> r.<String>getAs("table_name")).toList()).doesNotHaveDuplicates();
      for (Row r : at) {
        LocalDateTime fu = r.getAs("finalized_until");
        if (r.<String>getAs("table_name").equals("t")) {
          assertThat(prevT == null || !fu.isBefore(prevT)).as("t at version %d", v).isTrue();
          prevT = fu;
        } else {
          assertThat(prevU == null || !fu.isBefore(prevU)).as("u at version %d", v).isTrue();
          prevU = fu;
        }
      }
    }
  }
}
