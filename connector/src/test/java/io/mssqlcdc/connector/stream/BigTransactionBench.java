package io.mssqlcdc.connector.stream;

import static io.mssqlcdc.fake.FakeRows.row;

import io.mssqlcdc.connector.SharedSpark;
import io.mssqlcdc.fake.FakeCdcDatabase;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.streaming.StreamingQueryException;
import org.apache.spark.sql.streaming.Trigger;

/**
 * Executor memory while the stream reads one huge transaction (docs/SOURCE.md, "How a batch is
 * read", step 5): one commit of N rows with a payload of B bytes each is written to the fake,
 * then {@code format("mssql_cdc")} with {@code numPartitions=1} reads it in one partition (one
 * cursor) and counts it. Reported: the rows counted and how much the old generation grew at
 * peak while streaming (the rows are about {@code 2 * N * B} bytes if a reader held them).
 *
 * <p>Args: {@code [rows=1000000] [payloadBytes=1000]}; the fake writes about {@code 2 * N * B}
 * bytes to a temporary directory first. Run with the connector's test classpath (see
 * docs/FAKE.md for the command line) and {@code -Xmx3g -XX:+UseParallelGC}.
 * {@code BigTransactionBenchTest} runs it small.
 */
public final class BigTransactionBench {
  private BigTransactionBench() {}

  /** Rows counted by the query, rows written, and old-generation growth at peak. */
  record Result(long rowsCounted, long rowsWritten, int payloadBytes, long oldGenGrowthBytes) {
    @Override
    public String toString() {
      return String.format(Locale.ROOT,
          "BigTransactionBench: one transaction of %,d rows x %,d bytes (about %,d MB if held), %,d rows counted;"
              + " old generation grew %,d MB at peak while streaming",
          rowsWritten, payloadBytes, 2L * rowsWritten * payloadBytes >> 20, rowsCounted, oldGenGrowthBytes >> 20);
    }
  }

  public static void main(String[] args) throws IOException {
    int rows = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
    int payload = args.length > 1 ? Integer.parseInt(args[1]) : 1_000;
    System.out.println(run(rows, payload));
    SharedSpark.spark().stop();
  }

  static Result run(int rows, int payloadBytes) throws IOException {
    Path dir = Files.createTempDirectory("big-transaction-bench");
    try {
      Path db = dir.resolve("db");
      String payload = "x".repeat(payloadBytes); // one String shared by every row: the writer stays small
      try (FakeCdcDatabase fake = FakeCdcDatabase.create(db)) {
        fake.createTable("dbo", "t", "id int", "name varchar(max)");
        fake.enableCdc("dbo", "t");
        fake.commit(tx -> {
          for (int k = 0; k < rows; k++) {
            tx.insert("t", row("id", k, "name", payload));
          }
        });
      }
      MemoryPoolMXBean old = oldGen();
      System.gc();
      long before = old.getUsage().getUsed();
      old.resetPeakUsage();
      List<Long> counts = Collections.synchronizedList(new ArrayList<>());
      Dataset<Row> df = SharedSpark.spark().readStream().format("mssql_cdc")
          .options(StreamRuns.options(db.toString(), "dbo_t", "numPartitions", "1")).load();
      try {
        df.writeStream()
            .foreachBatch((Dataset<Row> batch, Long id) -> {
              counts.add(batch.count());
            })
            .trigger(Trigger.AvailableNow())
            .option("checkpointLocation", dir.resolve("ckpt").toString())
            .start()
            .awaitTermination();
      } catch (TimeoutException | StreamingQueryException e) {
        throw new IllegalStateException(e.getMessage(), e);
      }
      long growth = old.getPeakUsage().getUsed() - before;
      return new Result(counts.stream().mapToLong(Long::longValue).sum(), rows, payloadBytes, growth);
    } finally {
      try (Stream<Path> walk = Files.walk(dir)) {
        walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  private static MemoryPoolMXBean oldGen() {
    for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
      if (p.getType() == MemoryType.HEAP && (p.getName().contains("Old") || p.getName().contains("Tenured"))) {
        return p;
      }
    }
    throw new IllegalStateException("no old generation pool");
  }
}
