package io.mssqlcdc.fake;

import static io.mssqlcdc.fake.FakeRows.row;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * A separate writer OS process for {@link ConcurrentReadWriteTest}: commits {@code commits}
 * transactions of {@code rows} inserts each into {@code dbo.events} of the database at
 * {@code dir}, ids starting at {@code firstId}. With {@code pauseAt}, after that many commits it
 * prints {@code PAUSED <pauseAt>} and waits for a line {@code GO} on its stdin. Prints
 * {@code WRITER_DONE <commits>} at the end. Args: dir commits rows firstId [pauseAt].
 */
public final class WriterProcessMain {
  private WriterProcessMain() {}

  public static void main(String[] args) throws IOException {
    Path dir = Path.of(args[0]);
    int commits = Integer.parseInt(args[1]);
    int rows = Integer.parseInt(args[2]);
    int id = Integer.parseInt(args[3]);
    int pauseAt = args.length > 4 ? Integer.parseInt(args[4]) : -1;
    BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    try (FakeCdcDatabase db = FakeCdcDatabase.open(dir)) {
      for (int c = 0; c < commits; c++) {
        if (c == pauseAt) {
          System.out.println("PAUSED " + pauseAt);
          System.out.flush();
          String line = stdin.readLine();
          if (!"GO".equals(line)) {
            throw new IllegalStateException("expected GO on stdin, got " + line);
          }
        }
        int first = id;
        db.commit(tx -> {
          for (int r = 0; r < rows; r++) {
            tx.insert("dbo.events", row("id", first + r, "payload", "p" + (first + r)));
          }
        });
        id += rows;
      }
    }
    System.out.println("WRITER_DONE " + commits);
  }
}
