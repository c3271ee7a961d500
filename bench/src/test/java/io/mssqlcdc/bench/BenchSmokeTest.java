package io.mssqlcdc.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.mssqlcdc.bench.cases.BronzeIngestCase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Keeps the runner working: the whole suite at tiny sizes (one repetition, no timing asserted),
 * checking what each case computed against what the fixtures hold (their ids are the row
 * numbers 0..n-1, so n rows have ids summing to n(n-1)/2) and that the compared paths read the
 * same rows (equal checksums).
 */
@Tag("slow")
class BenchSmokeTest {
  private static SparkSession spark;
  private static BenchConfig config;
  private static Map<String, List<Figure>> byCase;
  private static Path json;

  @BeforeAll
  static void runTheSuite() throws Exception {
    Path target = Path.of("target").toAbsolutePath();
    Path out = Files.createDirectories(target.resolve("bench-smoke"));
    // fixtures kept between runs of the test, like the runner's
    config = BenchConfig.tiny(out, target.resolve("bench-smoke-data"));
    spark = BenchSpark.session(out.resolve("warehouse"));
    BenchMain.Result r = BenchMain.run(config, spark);
    System.out.println(Report.table(r.figures()));
    json = r.json();
    byCase = r.figures().stream().collect(Collectors.groupingBy(Figure::caseId));
  }

  @AfterAll
  static void stop() {
    if (spark != null) {
      spark.stop();
    }
  }

  private static long ids(long n) {
    return n * (n - 1) / 2;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> map(Object o) {
    return (Map<String, Object>) o;
  }

  @Test
  void everyCaseRanAndTheJsonWasWritten() throws Exception {
    assertThat(byCase.values().stream().flatMap(List::stream).filter(f -> f.status().equals("failed")).toList())
        .as("failed cases").isEmpty();
    assertThat(byCase).containsOnlyKeys("1 source", "2 snapshot", "3 bronze", "3.1 bronze rows", "4 silver", "history",
        "5 latency", "6 scaling", "6 memory", "7 fake cost", "11.6 jdbc");
    String text = Files.readString(json);
    assertThat(text).contains("\"caseId\" : \"1 source\"", "\"caseId\" : \"4 silver\"");
    for (Figure f : byCase.values().stream().flatMap(List::stream).toList()) {
      if (f.status().equals(Figure.MEASURED) && f.baseline() != null) {
        int reps = f.caseId().startsWith("3") || f.name().startsWith("full") ? config.heavyReps()
            : f.caseId().startsWith("5") || f.caseId().equals("6 memory") ? 1 : config.reps();
        assertThat(f.reps()).as(f.caseId() + " " + f.name()).isEqualTo(reps);
      }
    }
  }

  @Test
  void sourceAndSnapshotReadEveryRowAsTheirParquetBaselinesHoldThem() {
    for (String c : List.of("1 source", "2 snapshot")) {
      String reader = c.equals("1 source") ? "mssql_cdc" : "mssql_cdc_snapshot";
      List<Figure> compared = byCase.get(c).stream().filter(f -> !f.checks().isEmpty()).toList();
      assertThat(compared).hasSize(2);
      for (Figure f : compared) {
        long n = f.name().startsWith("narrow") ? config.narrowRows() : config.wideRows();
        Map<String, Object> read = map(f.checks().get(reader));
        assertThat(read).as(c + " " + f.name()).containsEntry("rows", n).containsEntry("idSum", ids(n));
        assertThat(read).as(c + " " + f.name() + ": same values as the baseline").isEqualTo(f.checks().get("parquet"));
        assertThat(f.checks().get("fixtureRows")).isEqualTo(n);
      }
    }
    for (Figure f : byCase.get("1 source").stream().filter(f -> !f.checks().isEmpty()).toList()) {
      long n = f.name().startsWith("narrow") ? config.narrowRows() : config.wideRows();
      assertThat(f.checks().get("rowsPerRun.mssql_cdc")).as("rows each timed run read").isEqualTo(List.of(n));
      assertThat(f.checks().get("rowsPerRun.parquet stream")).as("rows each timed Parquet stream read")
          .isEqualTo(List.of(n));
      assertThat(f.checks().get("rowsPerRun.held rows")).as("rows each timed stream of held rows read")
          .isEqualTo(List.of(n));
    }
    // the second baseline of each table: Parquet as a streaming file source, timed like the candidate; that
    // stream against the batch read; and the floor, a source that costs nothing per row, against both and the candidate
    List<String> lines = List.of(": vs Parquet as a streaming source", ": Spark's file stream vs the batch read",
        ": limit, rows held in memory vs Parquet as a streaming source",
        ": limit, rows held in memory vs the batch read", ": the source vs rows held in memory",
        ": the source's own ns a row over rows held in memory",
        ": ns a row the target leaves a source over rows held in memory");
    List<String> names = new java.util.ArrayList<>();
    for (String table : List.of("narrow", "wide")) {
      names.add(table.equals("narrow") ? "narrow, 5 columns" : "wide, 90 columns");
      lines.forEach(l -> names.add(table + l));
    }
    assertThat(byCase.get("1 source")).extracting(Figure::name).containsExactlyElementsOf(names);
    // issue 25's targets: twice Spark's file stream; the batch read's only at scale 10 (shown, not judged below it)
    assertThat(byCase.get("1 source")).extracting(Figure::target).containsExactly("(>= 1.00 at scale 10)", ">= 2.00",
        null, null, null, null, null, null, "(>= 1.00 at scale 10)", ">= 2.00", null, null, null, null, null, null);
    // what bounds the judged target, per row: the source's own time over the zero-cost source, and what the target
    // leaves (the latter can be negative: no row source meets it); one sample per repetition
    for (Figure f : byCase.get("1 source").stream().filter(f -> "ns/row".equals(f.metric())).toList()) {
      assertThat(f.value()).as(f.name()).isFinite();
      assertThat((List<?>) f.details().get("samples")).as(f.name()).hasSize(config.reps());
    }
    assertThat(byCase.get("1 source").stream().filter(f -> "ns/row".equals(f.metric()))).hasSize(4);
    assertThat(byCase.get("1 source").get(0).meetsTarget()).isNull();
    assertThat(byCase.get("1 source").get(1).meetsTarget()).isNotNull();
    assertThat(byCase.get("1 source").get(1).jobsText()).matches("\\d+ / \\d+");
    assertThat(byCase.get("2 snapshot")).extracting(Figure::target).containsExactly(">= 0.80", ">= 0.80");
  }

  @Test
  void theJdbcPathThroughTheStandInReadsEveryRowAsParquetHoldsThem() {
    Figure f = byCase.get("11.6 jdbc").get(0);
    long n = config.jdbcRows();
    Map<String, Object> read = map(f.checks().get("jdbc"));
    assertThat(read).containsEntry("rows", n).containsEntry("idSum", ids(n));
    assertThat(read).as("same values as the baseline").isEqualTo(f.checks().get("parquet"));
    assertThat(f.checks().get("rowsPerRun.jdbc")).isEqualTo(List.of(n));
    assertThat(f.checks().get("rowsPerRun.fake")).isEqualTo(List.of(n));
    List<Figure> jdbc = byCase.get("11.6 jdbc");
    assertThat(jdbc).extracting(Figure::name).containsExactly("narrow, backend=jdbc vs Parquet",
        "narrow, backend=jdbc vs backend=fake", "narrow: client CPU, the stand-in's apart",
        "narrow: the stand-in's share of the jdbc run's CPU");
    assertThat(jdbc.get(1).target()).isEqualTo(">= 0.60");
    // the stand-in's threads did the server's work, and it is part of the process's CPU time
    List<?> server = (List<?>) jdbc.get(2).details().get("standInCpuSeconds.jdbc");
    List<?> process = (List<?>) jdbc.get(2).details().get("processCpuSeconds.jdbc");
    assertThat(server).hasSize(config.reps());
    for (int i = 0; i < server.size(); i++) {
      assertThat((Double) server.get(i)).isPositive().isLessThan((Double) process.get(i));
    }
    assertThat(jdbc.get(3).value()).isBetween(0.0, 100.0);
  }

  @Test
  void bronzeHoldsEveryRunsRowsOnceInFiveBatchesAndOneFactsRowPerBatch() {
    List<Figure> bronze = byCase.get("3 bronze").stream().filter(f -> !f.checks().isEmpty()).toList();
    assertThat(bronze).hasSize(2);
    for (Figure f : bronze) {
      long n = f.name().startsWith("narrow") ? config.bronzeNarrowRows() : config.bronzeWideRows();
      long runs = config.heavyReps() + config.warmups();
      Map<String, Object> source = map(f.checks().get("source"));
      assertThat(source).containsEntry("rows", n).containsEntry("idSum", ids(n));
      for (String table : List.of("bronze", "delta append", "foreachBatch append", "Delta streaming sink",
          "idempotent foreachBatch")) {
        Map<String, Object> t = map(f.checks().get(table));
        assertThat(t).as(table).containsEntry("rows", runs * n).containsEntry("idSum", runs * ids(n))
            .containsEntry("hash", runs * (Long) source.get("hash"));
      }
      // Each run split into BATCHES micro-batches (20 commits, 4 per batch), of n / 5 rows each, in the streams
      // and in the baseline's appends alike; one facts row per micro-batch.
      List<Long> split = Collections.nCopies(BronzeIngestCase.BATCHES, n / BronzeIngestCase.BATCHES);
      assertThat(f.checks().get("plannedBatches")).isEqualTo((long) BronzeIngestCase.BATCHES);
      for (String v : BronzeIngestCase.VARIANTS) {
        assertThat(f.checks().get("batchRows." + v)).as(v)
            .isEqualTo(Collections.nCopies(config.heavyReps(), split));
      }
      // The job log attributes each streaming variant's jobs to its micro-batches: DeltaSink's steady budget
      // (DeltaSinkJobsTest: 5) and Delta's own sink's, one figure per repetition
      List<?> sinkJobs = (List<?>) f.details().get("jobsPerSteadyBatch.DeltaSink");
      assertThat(sinkJobs).hasSize(config.heavyReps());
      assertThat(sinkJobs).allSatisfy(j -> assertThat((Double) j).isBetween(1.0, 5.0));
      assertThat((List<?>) f.details().get("tailSeconds.DeltaSink")).hasSize(config.heavyReps())
          .allSatisfy(t -> assertThat((Double) t).isNotNegative());
      assertThat((List<?>) f.details().get("jobsPerSteadyBatch.Delta streaming sink"))
          .allSatisfy(j -> assertThat((Double) j).isBetween(1.0, 5.0));
      assertThat(f.jobsText()).as("jobs per steady batch, DeltaSink (on its path + beside it) / Delta's sink")
          .matches("\\d+\\.\\d\\+\\d+\\.\\d / \\d+\\.\\d");
      assertThat(map(f.checks().get("facts"))).containsEntry("rows", runs * BronzeIngestCase.BATCHES)
          .containsEntry("rowsSum", runs * n).containsEntry("insertsSum", runs * n);
    }
    List<String> names = new java.util.ArrayList<>();
    for (String t : List.of("narrow", "wide")) {
      names.add(t.equals("narrow") ? "narrow, 5 columns" : "wide, 90 columns");
      for (String n : List.of(": vs idempotent foreachBatch append", ": limit, cached appends",
          ": the sink's own cost", ": Delta's price of exactly-once", ": ceiling, no sink cost", ": with the stream's end",
          ": a run's first batch")) {
        names.add(t + n);
      }
    }
    assertThat(byCase.get("3 bronze")).extracting(Figure::name).containsExactlyElementsOf(names);
    assertThat(byCase.get("3 bronze").get(0).baseline()).startsWith("Delta's own exactly-once streaming sink");
    assertThat(byCase.get("3 bronze").get(0).target()).isEqualTo(">= 0.90");
  }

  @Test
  void silverAppliedTheWorkloadAsThePlainMergeOfItsRankedRowsDid() {
    List<Figure> silver = byCase.get("4 silver");
    assertThat(silver).extracting(Figure::name).hasSize(5).satisfies(n -> {
      assertThat(n.get(0)).startsWith("full: ");
      assertThat(n.get(1)).isEqualTo("full: limit, plain MERGE of ranked rows");
      assertThat(n.get(2)).isEqualTo("full: ceiling, every change read");
      assertThat(n.get(3)).startsWith("incremental: ");
      assertThat(n.get(4)).isEqualTo("incremental: limit, plain MERGE of ranked rows");
    });
    assertThat(silver.get(0).target()).isEqualTo(">= 1.00");
    assertThat(silver.get(3).target()).isEqualTo(">= 1.00");
    // The workload (SilverWorkload's contract): keys = changes / 5; the keys k mod 5 = 2 end deleted, those with
    // k mod 5 in {0, 1} reinserted with qty = -k, the others keep their inserted qty = k.
    long keys = config.silverChanges() / 25 * 5;
    long rows = 0;
    long idSum = 0;
    long qtySum = 0;
    for (long k = 0; k < keys; k++) {
      if (k % 5 != 2) {
        rows++;
        idSum += k;
        qtySum += k % 5 <= 1 ? -k : k;
      }
    }
    Figure full = silver.get(0);
    assertThat(full.checks()).containsEntry("bronzeRows", (long) config.silverChanges()).containsEntry("keys", keys)
        .containsEntry("qtySum", qtySum);
    assertThat(map(full.checks().get("ApplyChanges"))).containsEntry("rows", rows).containsEntry("idSum", idSum);
    assertThat(full.checks().get("ApplyChanges")).as("silver equals the plain MERGE's table")
        .isEqualTo(full.checks().get("plain MERGE"));
    assertThat(full.checks().get("read + plain MERGE")).as("the ceiling's MERGE wrote the same table")
        .isEqualTo(full.checks().get("plain MERGE"));
    assertThat(full.checks().get("hand-written ranking + MERGE")).as("the hand-written recipe wrote the same table")
        .isEqualTo(full.checks().get("plain MERGE"));
    assertThat(full.details().get("jobsPerCall")).asList().hasSize(config.heavyReps());
    assertThat(full.details().get("handWrittenJobsPerCall")).asList().hasSize(config.heavyReps());
    assertThat(full.jobsText()).as("jobs per call, ApplyChanges / the hand-written recipe").matches("\\d+ / \\d+");

    // Each incremental batch deletes as many keys as it inserts.
    Figure inc = silver.get(3);
    assertThat(inc.checks()).containsEntry("batches", (long) (config.warmups() + config.reps()));
    assertThat(map(inc.checks().get("ApplyChanges"))).containsEntry("rows", rows);
    assertThat(inc.checks().get("ApplyChanges")).as("silver equals the plain MERGE's table")
        .isEqualTo(inc.checks().get("plain MERGE"));
    assertThat(inc.checks().get("hand-written ranking + MERGE")).as("and the hand-written recipe's")
        .isEqualTo(inc.checks().get("plain MERGE"));
  }

  @Test
  void theHistoryEqualsTheHandWrittenVersionsFullAndIncremental() {
    List<Figure> history = byCase.get("history");
    assertThat(history).extracting(Figure::name).hasSize(2).satisfies(n -> {
      assertThat(n.get(0)).startsWith("full: ");
      assertThat(n.get(1)).startsWith("incremental: ");
    });
    Figure full = history.get(0);
    assertThat(map(full.checks().get("ApplyHistory")).get("rows")).as("versions").isNotEqualTo(0L);
    assertThat(full.checks().get("ApplyHistory")).as("ApplyHistory's versions equal lead()'s by hand")
        .isEqualTo(full.checks().get(io.mssqlcdc.bench.cases.HistoryApplyCase.HAND_FULL));
    assertThat(full.jobsText()).as("jobs per call, ApplyHistory / by hand").matches("\\d+ / \\d+");
    Figure inc = history.get(1);
    assertThat(inc.checks()).containsEntry("batches", (long) (config.warmups() + config.reps()));
    assertThat(inc.checks().get("ApplyHistory")).as("and the SCD2 MERGE's after every batch")
        .isEqualTo(inc.checks().get(io.mssqlcdc.bench.cases.HistoryApplyCase.HAND_MERGE));
  }

  @Test
  void latencyMeasuredEveryCommitAndAnIdleTriggerAsksMaxLsnOnce() {
    Figure p50 = byCase.get("5 latency").get(0);
    for (String v : List.of("DeltaSink", "Delta streaming sink", "foreachBatch append")) {
      Map<String, Object> m = map(p50.checks().get(v));
      long commits = (Long) m.get("commits");
      assertThat(commits).as(v + ": the writer committed").isPositive();
      long warmUp = (Long) m.get("warmUpCommits");
      assertThat(warmUp).as(v + ": the warm-up's commits").isPositive().isLessThan(commits);
      assertThat(m.get("commitsMeasured")).as(v + ": a latency per commit after the warm-up")
          .isEqualTo(commits - warmUp);
      // seed: 1,000 inserts; each commit: 50 updates, a before and an after image each
      assertThat(m.get("bronzeRows")).as(v).isEqualTo(1_000 + 100 * commits);
    }
    assertThat(map(p50.checks().get("idleCalls"))).isEqualTo(Map.of("maxLsn", (long) config.idleTriggers()));
    assertThat(byCase.get("5 latency")).extracting(Figure::name).containsExactly("commit-to-bronze p50",
        "commit-to-bronze p99", "p99: limit, plain foreachBatch append", "statements per idle trigger");
    Figure p99 = byCase.get("5 latency").get(1);
    assertThat(p99.baseline()).startsWith("source -> Delta's own streaming sink");
    assertThat(p99.target()).isEqualTo("<= 1.20");
    Figure idle = byCase.get("5 latency").get(3);
    assertThat(idle.value()).isEqualTo(1.0);
  }

  @Test
  void scalingAndMemoryReadEveryRow() {
    for (Figure f : byCase.get("6 scaling")) {
      assertThat(f.checks().get("rows")).as(f.name()).isEqualTo(List.of((long) config.narrowRows()));
    }
    Figure mem = byCase.get("6 memory").get(0);
    assertThat(mem.checks()).containsEntry("tx-" + config.bigTxRows(), List.of((long) config.bigTxRows()))
        .containsEntry("tx-" + config.smallTxRows(), List.of((long) config.smallTxRows()));
  }

  @Test
  void theBronzeRowCostVariantsAppendedEveryRowAndTheObservationCountedThem() {
    List<Figure> f = byCase.get("3.1 bronze rows");
    String size = String.format(java.util.Locale.ROOT, "%,d", config.bronzeNarrowRows());
    assertThat(f).extracting(Figure::name).containsExactly(size + " rows, 5 columns: columns and observation",
        size + " rows, 5 columns: columns only");
    Map<String, Object> checks = f.get(0).checks();
    long rows = (Long) checks.get("rows");
    assertThat(rows).isEqualTo(config.bronzeNarrowRows());
    assertThat(checks.get("observedRows")).isEqualTo(Collections.nCopies(config.heavyReps(), rows));
    assertThat(checks.get("observedUpdates")).isEqualTo(Collections.nCopies(config.heavyReps(), rows / 2));
    for (String v : List.of("append", "+ bronze columns", "+ bronze columns + observation")) {
      assertThat(checks.get("tableRows." + v)).as(v).isEqualTo(rows * (Long) checks.get("runs"));
    }
  }

  @Test
  void theRowPathVariantsReadTheSameRowsInOrder() {
    List<Figure> withChecks = byCase.get("7 fake cost").stream().filter(f -> !f.checks().isEmpty()).toList();
    assertThat(withChecks).hasSize(2);
    for (Figure f : withChecks) {
      long rows = (Long) f.checks().get("rows");
      long expected = 0; // rows in commit order: 31 * h + id + 2 (every row an insert)
      for (long k = 0; k < rows; k++) {
        expected = 31 * expected + k + 2;
      }
      for (String v : List.of("fake", "+ rows", "+ UnsafeRow")) {
        assertThat(f.checks().get(v)).as(f.name() + " " + v).isEqualTo(List.of(expected));
      }
    }
  }
}
