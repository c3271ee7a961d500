package io.mssqlcdc.crash;

import io.mssqlcdc.testing.CrashPoint;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The crash suite (issue 29, docs/RELIABILITY.md). The fixed set runs in every build (one case in the README's
 * command, all three with -Pall-tests, as CI runs it); the long mode
 * runs {@code -Dcrash.cases=N} random cases from {@code -Dcrash.seed} (default 1000) on; one case
 * replays with {@code -Dcrash.seed=S -Dcrash.point=P -Dcrash.kind=K} (what a failure prints).
 */
class CrashSuiteTest {
  @TempDir Path tmp;

  /**
   * The fixed set: each case reaches its point on a batch with rows (batch 0 after the bootstrap is empty, so the
   * sink's points crash on their second hit). The README's command runs this one, the widest: seed 2 also purges
   * unread changes (a re-snapshot), and it crashes in silver, the pipeline's last stage.
   */
  @ParameterizedTest(name = "seed {0}, {1} (hit {3}), {2}")
  @CsvSource({
      "2, silver.afterMerge, EXCEPTION, 1",
  })
  void fixedCases(long seed, String point, CrashCase.Kind kind, int nth) {
    fixedCase(seed, point, kind, nth);
  }

  /**
   * The rest of the fixed set, in the slow set (issue 27: the README's command stays short; CI's -Pall-tests runs
   * them on every submission): a crash right after bronze's commit, a stop right after the facts, the driver
   * JVM killed in the facts committer's group commit (the rows it held in memory are lost with it: the restart
   * must rebuild them from bronze, decision 0013), and a crash right after bronze's commit of the batch that reads
   * the newer capture instance's first change (seed 14: a column added and the instance switched in round 1 while
   * the query ran: the query stops at the newer instance's start asking for a restart, and the restarted query's
   * first batch crashes; the replay must not add bronze's new column's rows or the switch event twice). Seed 1
   * switches between two runs of the query, and its crash is on the newer instance's first batch too.
   */
  @Tag("slow")
  @ParameterizedTest(name = "seed {0}, {1} (hit {3}), {2}")
  @CsvSource({
      "1, sink.afterBronzeCommit, EXCEPTION, 2",
      "3, sink.afterFacts, STOP, 2",
      "8, sink.factsCommit, KILL, 1",
      "14, sink.afterBronzeCommit, EXCEPTION, 4",
  })
  void fixedCasesSlow(long seed, String point, CrashCase.Kind kind, int nth) {
    fixedCase(seed, point, kind, nth);
  }

  private void fixedCase(long seed, String point, CrashCase.Kind kind, int nth) {
    Assumptions.assumeTrue(System.getProperty("crash.seed") == null && System.getProperty("crash.cases") == null
        && System.getProperty("crash.seeds") == null,
        "a replay or the long mode runs instead");
    CrashCase c = new CrashCase(seed, CrashPoint.parse(point), kind, nth, 2);
    c.run(tmp);
    // The fixed cases are chosen to reach their point: a case that passes without crashing proves less.
    org.assertj.core.api.Assertions.assertThat(c.firedIn()).as("where %s crashed", c.describe()).isNotNull();
    System.out.println("crash case " + c.describe() + ": passed (crashed in " + c.firedIn() + ")");
  }

  /** One case (-Dcrash.seed=S [-Dcrash.point=P] [-Dcrash.kind=K]) or the long mode (-Dcrash.cases=N). */
  @Test
  void chosenCases() {
    String seed = System.getProperty("crash.seed");
    String cases = System.getProperty("crash.cases");
    String list = System.getProperty("crash.seeds");
    Assumptions.assumeTrue(seed != null || cases != null || list != null, "no -Dcrash.seed, -Dcrash.seeds or -Dcrash.cases");
    CrashPoint point = blank(System.getProperty("crash.point")) ? null : CrashPoint.parse(System.getProperty("crash.point"));
    CrashCase.Kind kind = blank(System.getProperty("crash.kind")) ? null
        : CrashCase.Kind.valueOf(System.getProperty("crash.kind").toUpperCase(java.util.Locale.ROOT));
    long first = seed == null ? 1000 : Long.parseLong(seed);
    // -Dcrash.seeds=S1,S2,...: those cases, each as the long mode drew it
    List<Long> seeds = list == null ? null : java.util.Arrays.stream(list.split(",")).map(String::strip)
        .map(Long::parseLong).toList();
    int n = seeds != null ? seeds.size() : cases == null ? 1 : Integer.parseInt(cases);
    int rounds = Integer.parseInt(System.getProperty("crash.rounds", "3"));
    int nth = Integer.parseInt(System.getProperty("crash.nth", "0"));
    // -Dcrash.minutes=M: start no case after M minutes (the summary then counts the cases run)
    double minutes = Double.parseDouble(System.getProperty("crash.minutes", "0"));
    int run = 0;
    Map<String, int[]> byPoint = new TreeMap<>();
    List<String> failures = new ArrayList<>();
    long t0 = System.nanoTime();
    for (int i = 0; i < n; i++) {
      if (minutes > 0 && System.nanoTime() - t0 > minutes * 60e9) {
        System.out.printf("crash suite: stopping after %.1f minutes (-Dcrash.minutes)%n", minutes);
        break;
      }
      run++;
      CrashCase c = new CrashCase(seeds != null ? seeds.get(i) : first + i, point, kind, nth, rounds);
      Path dir = tmp.resolve("case-" + c.seed);
      long c0 = System.nanoTime();
      String outcome;
      try {
        c.run(dir);
        outcome = c.firedIn() == null ? "passed (point not reached)" : "passed (crashed in " + c.firedIn() + ")";
        delete(dir);
      } catch (AssertionError e) {
        outcome = "FAILED";
        failures.add(e.getMessage());
        System.out.println(e.getMessage());
      }
      int[] counts = byPoint.computeIfAbsent(c.point.id() + " " + c.kind, k -> new int[3]);
      counts[0]++;
      counts[1] += c.firedIn() != null ? 1 : 0;
      counts[2] += outcome.equals("FAILED") ? 1 : 0;
      System.out.printf("crash case %d/%d: %s: %s in %d s%n", i + 1, n, c.describe(), outcome,
          (System.nanoTime() - c0) / 1_000_000_000L);
    }
    StringBuilder summary = new StringBuilder(String.format("crash suite: %d case(s) from seed %d in %d s, %d failed%n",
        run, first, (System.nanoTime() - t0) / 1_000_000_000L, failures.size()));
    byPoint.forEach((k, v) -> summary.append(String.format("  %-40s %3d cases, %3d crashed, %3d failed%n", k, v[0],
        v[1], v[2])));
    System.out.print(summary);
    if (!failures.isEmpty()) {
      throw new AssertionError(failures.size() + " of " + run + " crash case(s) failed:\n" + String.join("\n\n", failures));
    }
  }

  private static boolean blank(String s) {
    return s == null || s.isBlank();
  }

  private static void delete(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path f : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
        Files.deleteIfExists(f);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
