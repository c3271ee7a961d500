package io.mssqlcdc.connector.stream;

import static io.mssqlcdc.fake.FakeRows.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.mssqlcdc.fake.FakeCdcDatabase;
import io.mssqlcdc.lsn.Lsn;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The per-batch figures of {@link BatchReport} that fill the facts table's metric columns
 * (reference-behaviour §7, §8, §14.2), on the real Spark engine over the fake: each present,
 * exact where the history fixes it (rows, bytes, offsets, watermark, {@code max_lsn}, lost
 * interval), plausible where it is a measurement (round trip, seconds, lag).
 */
@Tag("spark")
class BatchReportFiguresTest {
  /** Bytes of a change row's metadata columns: two LSN texts, three fixed-width values, the instance label. */
  private static final int METADATA_BYTES = 22 * 2 + 8 * 3;

  @TempDir Path tmp;
  FakeCdcDatabase db;
  Path ckpt;
  /** Commit times of the history: whole seconds, two hours ago (UTC, the fake's default server clock). */
  LocalDateTime t0 = LocalDateTime.now(ZoneOffset.UTC).truncatedTo(ChronoUnit.SECONDS).minusHours(2);

  @BeforeEach
  void setUp() {
    db = FakeCdcDatabase.create(tmp.resolve("db"));
    db.createTable("dbo", "orders", "order_id int", "status varchar(20)").key("order_id");
    db.enableCdc("dbo", "orders");
    ckpt = tmp.resolve("ckpt");
  }

  private Map<String, String> options(String... kv) {
    return StreamRuns.options(db.path().toString(), "dbo_orders", kv);
  }

  private Lsn insertAt(LocalDateTime at, int... ids) {
    return db.commitAt(at, tx -> {
      for (int id : ids) {
        tx.insert("orders", row("order_id", id, "status", "new"));
      }
    });
  }

  private static Instant utc(LocalDateTime t) {
    return t.toInstant(ZoneOffset.UTC);
  }

  /** Estimated bytes of one change row of (order_id int, status 'new') read from instance {@code label}. */
  private static long rowBytes(String label) {
    return METADATA_BYTES + label.length() + 4 + "new".length();
  }

  @Test
  void aBatchCarriesEveryMetricOfItsFactsRow() {
    insertAt(t0, 0, 1);
    Lsn l2 = insertAt(t0.plusMinutes(10), 2, 3);
    insertAt(t0.plusMinutes(20), 4);
    db.cleanup("dbo_orders", l2);
    Lsn idle = db.idleAt(t0.plusMinutes(30));
    Instant before = Instant.now();
    StreamRuns.Run run = StreamRuns.availableNow(options(), ckpt);
    Instant after = Instant.now();

    assertThat(run.sizes()).containsExactly(3);
    BatchReport r = run.batches().get(0).report().orElseThrow();
    // The source's stop() tells the registry its query stopped (its reports go after 16 more).
    assertThat(BatchEvents.isTerminated(run.query().id().toString())).isTrue();
    assertThat(r.rowsRead()).isEqualTo(3);
    assertThat(r.bytesRead()).isEqualTo(3 * rowBytes("dbo_orders"));
    assertThat(r.readMb()).hasValue(3 * rowBytes("dbo_orders") / 1e6);
    assertThat(r.endLsn()).isEqualTo(idle);
    assertThat(r.endCommitTs()).contains(utc(t0.plusMinutes(30)));
    assertThat(r.retentionWatermark()).as("commit time of min_lsn after the read").contains(utc(t0.plusMinutes(10)));
    assertThat(r.sourceMaxLsn()).contains(idle);
    assertThat(r.sourceMaxCommitTs()).contains(utc(t0.plusMinutes(30)));
    assertThat(r.retentionHeadroomHours()).as("20 minutes").hasValue(0.33);
    assertThat(r.ingestionLagSeconds()).hasValue(0.0);
    double lagLow = Duration.between(utc(t0.plusMinutes(30)), before).toMillis() / 1000.0;
    double lagHigh = Duration.between(utc(t0.plusMinutes(30)), after).toMillis() / 1000.0;
    assertThat(r.captureLagSeconds()).isPresent();
    assertThat(r.captureLagSeconds().getAsDouble()).isBetween(lagLow - 0.001, lagHigh + 0.001);
    assertThat(r.sourceRttMs()).isPresent();
    assertThat(r.sourceRttMs().getAsDouble()).isBetween(0.0, 10_000.0);
    assertThat(r.networkWaitMs()).as("the fake's sessions never wait on the network").hasValue(0);
    assertThat(r.readSeconds()).isPresent();
    assertThat(r.readSeconds().getAsDouble())
        .isBetween(0.0, Duration.between(before, after).toMillis() / 1000.0 + 0.001);
    assertThat(r.partitionsPlanned()).isEqualTo(1);
    assertThat(r.partitionsRead()).isEqualTo(1);
    assertThat(r.partitions()).singleElement().satisfies(p -> {
      assertThat(p.range().to()).isEqualTo(idle);
      assertThat(p.minLsn()).isEqualTo(l2);
      assertThat(p.rows()).isEqualTo(3);
    });
    assertThat(r.events()).isEmpty();
    assertThat(r.warnings()).isEmpty();
  }

  /**
   * A batch across a capture-instance switch reads two ranges: figures are summed over both,
   * the round trip is their median, and only the last range (the newer instance's) measures the
   * position after its read.
   */
  @Test
  void aBatchOfTwoRangesSumsThemAndMeasuresThePositionOnItsLastRange() {
    Lsn l1 = insertAt(t0, 0);
    db.enableCdc("dbo", "orders", "dbo_orders_v2");
    Lsn l2 = insertAt(t0.plusMinutes(10), 1);
    StreamRuns.Run run = StreamRuns.availableNow(options(), ckpt);

    BatchReport r = run.batches().get(0).report().orElseThrow();
    assertThat(r.rowsRead()).isEqualTo(2);
    assertThat(r.bytesRead()).isEqualTo(rowBytes("dbo_orders") + rowBytes("dbo_orders_v2"));
    assertThat(r.partitionsPlanned()).isEqualTo(2);
    List<PartitionFigures> parts = r.partitions();
    assertThat(parts).extracting(p -> p.range().captureInstance()).containsExactly("dbo_orders", "dbo_orders_v2");
    assertThat(parts.get(0).maxLsn()).as("not the last range: no position figures").isNull();
    assertThat(parts.get(0).retentionWatermark()).isNull();
    assertThat(parts.get(1).maxLsn()).isEqualTo(l2);
    assertThat(r.sourceMaxCommitTs()).contains(utc(t0.plusMinutes(10)));
    assertThat(r.retentionWatermark()).as("v2's min_lsn is its start LSN, which the fake gives its first commit")
        .contains(utc(t0.plusMinutes(10)));
    assertThat(r.sourceRttMs()).hasValue(
        io.mssqlcdc.connector.FactsRounding.round((parts.get(0).rttMs() + parts.get(1).rttMs()) / 2, 1));
    assertThat(r.networkWaitMs()).hasValue(0);
    assertThat(r.endLsn()).isEqualTo(l2);
    assertThat(l1).isLessThan(l2);
  }

  @Test
  void aSkipByThePlannerCarriesTheLostIntervalAndItsWarnings() {
    Lsn l1 = insertAt(t0, 0);
    StreamRuns.availableNow(options(), ckpt);
    insertAt(t0.plusMinutes(10), 1);
    Lsn l3 = insertAt(t0.plusMinutes(20), 2);
    db.cleanup("dbo_orders", l3);
    StreamRuns.Run run = StreamRuns.availableNow(options("failOnDataLoss", "false"), ckpt);

    BatchReport r = run.batches().get(0).report().orElseThrow();
    assertThat(r.startOffset().lsn()).isEqualTo(l1);
    assertThat(r.events()).singleElement().satisfies(e -> {
      assertThat(e.kind()).isEqualTo(BatchEvent.Kind.DATA_SKIPPED);
      assertThat(e.lsn()).isEqualTo(l3);
      assertThat(e.detail()).isEqualTo("{\"from\": \"" + l1.increment() + "\", \"to\": \"" + l3 + "\", \"certain\": true}");
      assertThat(e.lostFromTs()).as("commit time of the batch's start offset").isEqualTo(utc(t0));
      assertThat(e.lostToTs()).as("commit time of the min_lsn resumed at").isEqualTo(utc(t0.plusMinutes(20)));
    });
    assertThat(r.warnings()).hasSize(2);
    assertThat(r.warnings().get(0)).startsWith("mssql_cdc: dbo_orders: changes from " + l1.increment() + " to before "
        + l3 + " (min_lsn, committed ").contains("are gone and failOnDataLoss=false");
    assertThat(r.warnings().get(1)).startsWith("mssql_cdc: data_skipped dbo_orders at " + l3);
    assertThat(r.retentionWatermark()).contains(utc(t0.plusMinutes(20)));
  }

  @Test
  void aSkipFoundAfterTheReadCarriesTheLostIntervalToo() {
    insertAt(t0, 0);
    StreamRuns.availableNow(options(), ckpt);
    Lsn l2 = insertAt(t0.plusMinutes(10), 1);
    // cleanup, as SQL Server's, moves min_lsn to a mapping entry (and deletes the entries below it)
    StreamRuns.Run run = StreamRuns.availableNow(options("failOnDataLoss", "false"), ckpt,
        (df, id) -> db.cleanup("dbo_orders", db.idleAt(t0.plusMinutes(15))));

    BatchReport r = run.batches().get(0).report().orElseThrow();
    assertThat(r.endLsn()).isEqualTo(l2);
    assertThat(r.events()).singleElement().satisfies(e -> {
      assertThat(e.kind()).isEqualTo(BatchEvent.Kind.DATA_SKIPPED);
      assertThat(e.detail()).contains("\"certain\": false").contains("\"reason\": ");
      assertThat(e.lostFromTs()).isEqualTo(utc(t0));
      assertThat(e.lostToTs()).as("commit time of the new min_lsn").isEqualTo(utc(t0.plusMinutes(15)));
    });
    assertThat(r.retentionWatermark()).contains(utc(t0.plusMinutes(15)));
    assertThat(r.warnings()).as("the executor's finding is an event, not a driver warning").isEmpty();
  }

  @Test
  void theDriversWarningsOfABatchAreKeptOnceInFirstSeenOrder() {
    insertAt(t0, 0);
    StreamRuns.availableNow(options(), ckpt);
    Lsn ddl = db.addColumn("dbo.orders", "note nvarchar(10)");
    insertAt(t0.plusMinutes(10), 1);
    StreamRuns.Run run = StreamRuns.availableNow(options(), ckpt);

    BatchReport r = run.batches().get(0).report().orElseThrow();
    assertThat(r.events()).singleElement().satisfies(e -> assertThat(e.kind()).isEqualTo(BatchEvent.Kind.SCHEMA_CHANGE));
    assertThat(r.warnings()).singleElement().asString()
        .startsWith("mssql_cdc: schema_change dbo_orders at " + ddl).contains("ADD [note] nvarchar(10)");
  }

  @Test
  void computedColumnsLeftOutAreAWarningOfTheFirstBatch() {
    db.createTable("dbo", "lines", "line_id int", "qty int", "total int computed").key("line_id");
    db.enableCdc("dbo", "lines");
    db.commitAt(t0, tx -> tx.insert("lines", row("line_id", 1, "qty", 2)));
    StreamRuns.Run run = StreamRuns.availableNow(StreamRuns.options(db.path().toString(), "dbo_lines"), ckpt);
    assertThat(run.batches().get(0).report().orElseThrow().warnings()).singleElement().asString()
        .startsWith("mssql_cdc: computed column(s) [total] left out of the schema");

    StreamRuns.Run declared = StreamRuns.availableNow(StreamRuns.options(db.path().toString(), "dbo_lines",
        "columns", "line_id INT, total INT"), tmp.resolve("declared"));
    assertThat(declared.batches().get(0).report().orElseThrow().warnings()).singleElement().asString()
        .isEqualTo("mssql_cdc: column 'total' listed in 'columns' is computed: CDC stores NULL for it in every"
            + " change row.");
  }

  @Test
  void anEmptyBatchReadsOneRangeAndStillMeasures() {
    insertAt(t0, 0);
    StreamRuns.availableNow(options(), ckpt);
    Lsn idle = db.idleAt(t0.plusMinutes(5));
    BatchReport r = StreamRuns.availableNow(options(), ckpt).batches().get(0).report().orElseThrow();
    assertThat(r.rowsRead()).isZero();
    assertThat(r.readMb()).hasValue(0.0);
    assertThat(r.sourceMaxLsn()).contains(idle);
    assertThat(r.endCommitTs()).contains(utc(t0.plusMinutes(5)));
    assertThat(r.networkWaitMs()).hasValue(0);
  }
}
