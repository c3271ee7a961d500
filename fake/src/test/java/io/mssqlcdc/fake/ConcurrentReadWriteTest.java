package io.mssqlcdc.fake;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.mssqlcdc.client.ChangeCursor;
import io.mssqlcdc.client.ChangeQuery;
import io.mssqlcdc.lsn.Lsn;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Writers in other OS processes append commits while this thread reads: a reader never sees
 * a partial commit, and the commits it sees are exactly the mapping's entries, in order.
 *
 * <p>Coordinated, not timed: each writer stops after {@link #PAUSE_AT} commits and waits for
 * this test's "GO" on its stdin (it says "PAUSED n" on its stdout), so one read is sure to see
 * the writers half-way; then they go on while this thread keeps reading until they exit.
 */
class ConcurrentReadWriteTest {
  private static final int COMMITS = 100;
  private static final int ROWS = 40;
  private static final int PAUSE_AT = COMMITS / 2;

  @TempDir
  Path dir;

  /** A writer process and the pipes of its handshake. */
  private record Writer(Process process, BufferedReader out, java.io.Writer in, Path log) {
    /** Waits for {@code line} on the writer's stdout (other lines are skipped). */
    void expect(String line) throws IOException {
      for (String l = out.readLine(); l != null; l = out.readLine()) {
        if (l.equals(line)) {
          return;
        }
      }
      fail("the writer exited before saying '" + line + "'; see " + log);
    }

    void go() throws IOException {
      in.write("GO\n");
      in.flush();
    }
  }

  private Writer startWriter(int firstId) throws IOException {
    String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
    Path log = dir.resolve("writer-" + firstId + ".log");
    Process p = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), WriterProcessMain.class.getName(),
        dir.toString(), Integer.toString(COMMITS), Integer.toString(ROWS), Integer.toString(firstId),
        Integer.toString(PAUSE_AT))
        .redirectError(log.toFile())
        .start();
    return new Writer(p, new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8)),
        new OutputStreamWriter(p.getOutputStream(), StandardCharsets.UTF_8), log);
  }

  @Test
  @Timeout(value = 10, unit = TimeUnit.MINUTES) // a guard against a hung writer only: the run takes seconds
  void aReaderNeverSeesAPartialCommitWhileAnotherProcessWrites() throws Exception {
    runWriters(1);
  }

  @Test
  @Timeout(value = 10, unit = TimeUnit.MINUTES)
  void twoWriterProcessesSerialiseOnTheLock() throws Exception {
    runWriters(2);
  }

  private void runWriters(int writers) throws Exception {
    try (FakeCdcDatabase db = FakeCdcDatabase.create(dir)) {
      db.createTable("dbo", "events", "id int", "payload nvarchar(20)").key("id");
      db.enableCdc("dbo", "events");
    }
    List<Writer> ws = new ArrayList<>();
    try {
      for (int w = 0; w < writers; w++) {
        ws.add(startWriter(1 + w * 1_000_000));
      }
      for (Writer w : ws) {
        w.expect("PAUSED " + PAUSE_AT);
      }
      int expected = COMMITS * writers;
      int reads = 0;
      int midway = 0; // reads after GO that saw some but not all commits
      try (FakeCdcClient client = FakeCdcClient.open(dir)) {
        assertThat(checkConsistent(client)).as("commits seen while every writer waits half-way")
            .isEqualTo(PAUSE_AT * writers);
        for (Writer w : ws) {
          w.go();
        }
        Optional<Lsn> lastMax = Optional.empty();
        while (ws.stream().anyMatch(w -> w.process().isAlive())) {
          Optional<Lsn> max = client.maxLsn();
          if (max.equals(lastMax)) {
            if (Thread.interrupted()) { // the hang guard (@Timeout) fired
              throw new InterruptedException("writers still running");
            }
            Thread.onSpinWait(); // nothing new: poll again until the writers exit
            continue;
          }
          lastMax = max;
          if (checkConsistent(client) < expected) {
            midway++;
          }
          reads++;
        }
        for (Writer w : ws) {
          w.expect("WRITER_DONE " + COMMITS);
          assertThat(w.process().waitFor()).as("exit code of the writer (log: %s)", w.log()).isZero();
        }
        assertThat(checkConsistent(client)).as("every commit, once the writers are done").isEqualTo(expected);
      }
      System.out.println("ConcurrentReadWriteTest: " + writers + " writer(s), " + reads + " reads while they wrote, "
          + midway + " of them mid-way");
    } finally {
      for (Writer w : ws) {
        w.process().destroyForcibly();
      }
    }
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
