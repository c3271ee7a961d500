package io.mssqlcdc.fake;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.mssqlcdc.client.ChangeCursor;
import io.mssqlcdc.client.ChangeQuery;
import io.mssqlcdc.lsn.Lsn;
import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Writers in other OS processes append commits while this thread reads: a reader never sees
 * a partial commit, and the commits it sees are exactly the mapping's entries, in order.
 */
class ConcurrentReadWriteTest {
  private static final int COMMITS = 100;
  private static final int ROWS = 40;
  private static final long TIMEOUT_MS = 120_000;

  @TempDir
  Path dir;

  private Process startWriter(int commits, int firstId) throws Exception {
    String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
    return new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), WriterProcessMain.class.getName(),
        dir.toString(), Integer.toString(commits), Integer.toString(ROWS), Integer.toString(firstId))
        .redirectErrorStream(true)
        .redirectOutput(dir.resolve("writer-" + firstId + ".log").toFile())
        .start();
  }

  @Test
  void aReaderNeverSeesAPartialCommitWhileAnotherProcessWrites() throws Exception {
    runWriters(1);
  }

  @Test
  void twoWriterProcessesSerialiseOnTheLock() throws Exception {
    runWriters(2);
  }

  private void runWriters(int writers) throws Exception {
    try (FakeCdcDatabase db = FakeCdcDatabase.create(dir)) {
      db.createTable("dbo", "events", "id int", "payload nvarchar(20)").key("id");
      db.enableCdc("dbo", "events");
    }
    List<Process> processes = new ArrayList<>();
    for (int w = 0; w < writers; w++) {
      processes.add(startWriter(COMMITS, 1 + w * 1_000_000));
    }
    int expected = COMMITS * writers;
    long deadline = System.currentTimeMillis() + TIMEOUT_MS;
    int reads = 0;
    Optional<Lsn> lastMax = Optional.empty();
    int maxSeen = 0;
    int midway = 0; // reads that saw some but not all commits: the writers were active

    try (FakeCdcClient client = FakeCdcClient.open(dir)) {
      while (maxSeen < expected) {
        if (System.currentTimeMillis() > deadline) {
          fail("saw " + maxSeen + " of " + expected + " commits after " + reads + " reads");
        }
        if (processes.stream().anyMatch(p -> !p.isAlive() && p.exitValue() != 0)) {
          fail("a writer process failed; see its log next to " + dir);
        }
        Optional<Lsn> max = client.maxLsn();
        if (max.equals(lastMax)) {
          Thread.onSpinWait(); // nothing new: poll again (bounded by the deadline)
          continue;
        }
        lastMax = max;
        int seen = checkConsistent(client);
        if (seen > 0 && seen < expected) {
          midway++;
        }
        maxSeen = Math.max(maxSeen, seen);
        reads++;
      }
    }
    for (Process p : processes) {
      assertThat(p.waitFor(TIMEOUT_MS, TimeUnit.MILLISECONDS)).isTrue();
      assertThat(p.exitValue()).isZero();
    }
    System.out.println("ConcurrentReadWriteTest: " + writers + " writer(s), " + reads + " reads, " + midway
        + " while writing");
    assertThat(midway).as("reads that overlapped the writers").isGreaterThan(0);
  }

  /** Reads everything up to max_lsn; returns the number of commits seen, all checked. */
  private int checkConsistent(FakeCdcClient client) {
    Optional<Lsn> max = client.maxLsn();
    if (max.isEmpty()) {
      return 0;
    }
    Map<Lsn, Integer> perCommit = new LinkedHashMap<>();
    try (ChangeCursor c = client.changes(new ChangeQuery("dbo_events", Lsn.ZERO, max.get(), List.of("id"), true, 1000))) {
      while (c.next()) {
        perCommit.merge(c.startLsn(), 1, Integer::sum);
        if (c.value(0) == null) {
          fail("NULL id in commit " + c.startLsn());
        }
      }
    }
    Lsn previous = null;
    for (Map.Entry<Lsn, Integer> e : perCommit.entrySet()) {
      assertThat(e.getValue()).as("rows of commit %s", e.getKey()).isEqualTo(ROWS);
      assertThat(client.commitTime(e.getKey())).as("commit %s is a mapping entry", e.getKey()).isPresent();
      if (previous == null) {
        assertThat(client.nthCommitAfter(Lsn.ZERO, 1)).contains(e.getKey());
      } else {
        assertThat(client.nthCommitAfter(previous, 1)).as("entry after %s", previous).contains(e.getKey());
      }
      previous = e.getKey();
    }
    if (previous != null) {
      assertThat(previous).as("the last commit read is max_lsn").isEqualTo(max.get());
    }
    return perCommit.size();
  }
}
