package io.mssqlcdc.fake;

import static io.mssqlcdc.fake.FakeRows.row;

import java.nio.file.Path;

/**
 * A separate writer OS process for {@link ConcurrentReadWriteTest}: commits {@code commits}
 * transactions of {@code rows} inserts each into {@code dbo.events} of the database at
 * {@code dir}, ids starting at {@code firstId}. Args: dir commits rows firstId.
 */
public final class WriterProcessMain {
  private WriterProcessMain() {}

  public static void main(String[] args) {
    Path dir = Path.of(args[0]);
    int commits = Integer.parseInt(args[1]);
    int rows = Integer.parseInt(args[2]);
    int id = Integer.parseInt(args[3]);
    try (FakeCdcDatabase db = FakeCdcDatabase.open(dir)) {
      for (int c = 0; c < commits; c++) {
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
