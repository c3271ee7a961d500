package io.mssqlcdc.connector.stream;

import static io.mssqlcdc.fake.FakeRows.row;

import io.mssqlcdc.client.ChangeCursor;
import io.mssqlcdc.client.ChangeQuery;
import io.mssqlcdc.connector.SchemaInference;
import io.mssqlcdc.fake.FakeCdcClient;
import io.mssqlcdc.fake.FakeCdcDatabase;
import io.mssqlcdc.lsn.Lsn;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.types.StructType;

/**
 * How much of an executor's per-row cost is the fake's (issue: the fake must cost much less than
 * the connector's own per-row work, so that benchmarks measure the connector). Same JVM, same
 * rows, interleaved rounds:
 *
 * <ul>
 *   <li>{@code fake}: {@code FakeCdcClient.changes} alone, touching every value;
 *   <li>{@code fake+connector}: what a partition reader does per row: the fake's cursor,
 *       {@link ChangeRowConverter} (metadata columns, every value cast to the declared type) and
 *       the {@code UnsafeProjection} Spark applies to a row-based reader's rows.
 * </ul>
 *
 * The fake's share is {@code fake / (fake+connector)}. Run:
 * {@code FakeShareBench.main(rows, rounds)} with the connector's test classpath;
 * {@code FakeShareBenchTest} runs it small.
 */
public final class FakeShareBench {
  private FakeShareBench() {}

  /**
   * Nanoseconds per row of each variant, and what each added up from the ids it read, in read
   * order ({@code h = 31 * h + id}): equal when both paths read the same rows in the same order.
   */
  record Result(long rows, double fakeNs, double fullNs, long fakeChecksum, long fullChecksum) {
    double share() {
      return fakeNs / fullNs;
    }

    @Override
    public String toString() {
      return String.format(Locale.ROOT,
          "rows=%d fake=%.1f ns/row fake+connector=%.1f ns/row connector=%.1f ns/row fake share=%.1f%% checksums %d/%d",
          rows, fakeNs, fullNs, fullNs - fakeNs, 100 * share(), fakeChecksum, fullChecksum);
    }
  }

  public static void main(String[] args) throws IOException {
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 500_000;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    System.out.println("FakeShareBench " + run(n, rounds));
  }

  static Result run(int n, int rounds) throws IOException {
    Path dir = Files.createTempDirectory("fake-share-bench");
    try (FakeCdcDatabase db = FakeCdcDatabase.create(dir)) {
      db.createTable("dbo", "t", "id bigint", "name nvarchar(40)", "amount decimal(18,2)", "at datetime2(3)",
          "guid uniqueidentifier", "flag bit").key("id");
      String ci = db.enableCdc("dbo", "t");
      int perCommit = Math.max(1, Math.min(10_000, n / 10));
      Lsn first = null;
      Lsn last = null;
      LocalDateTime at = LocalDateTime.of(2026, 11, 30, 12, 0);
      for (int done = 0; done < n; done += perCommit) {
        int from = done;
        int to = Math.min(n, done + perCommit);
        last = db.commit(tx -> {
          for (long k = from; k < to; k++) {
            tx.insert("dbo.t", row("id", k, "name", "customer-" + k, "amount", BigDecimal.valueOf(k, 2),
                "at", at.plusSeconds(k), "guid", new UUID(k, k).toString(), "flag", k % 2 == 0));
          }
        });
        first = first == null ? last : first;
      }
      StructType schema = SchemaInference.withMetadata(
          StructType.fromDDL("id BIGINT, name STRING, amount DECIMAL(18,2), at TIMESTAMP_NTZ, guid STRING, flag BOOLEAN"),
          true);
      List<String> columns = Arrays.asList(StructType.fromDDL(
          "id BIGINT, name STRING, amount DECIMAL(18,2), at TIMESTAMP_NTZ, guid STRING, flag BOOLEAN").fieldNames());
      ChangeQuery q = new ChangeQuery(ci, first, last, columns, true, 10_000);
      FakeCdcClient client = db.client();
      long bestFake = Long.MAX_VALUE;
      long bestFull = Long.MAX_VALUE;
      long fakeSum = 0;
      long fullSum = 0;
      for (int r = 0; r < rounds + 1; r++) { // round 0 warms up (and decodes into the fake's cache)
        long t0 = System.nanoTime();
        long fs = fakeOnly(client, q);
        long t1 = System.nanoTime();
        long cs = fakeAndConnector(client, q, schema, ci);
        long t2 = System.nanoTime();
        if (r == 0) {
          fakeSum = fs;
          fullSum = cs;
        } else {
          bestFake = Math.min(bestFake, t1 - t0);
          bestFull = Math.min(bestFull, t2 - t1);
          if (fs != fakeSum || cs != fullSum) {
            throw new IllegalStateException("round " + r + " read other rows than round 0");
          }
        }
      }
      return new Result(n, (double) bestFake / n, (double) bestFull / n, fakeSum, fullSum);
    } finally {
      try (Stream<Path> walk = Files.walk(dir)) {
        walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  /** Keeps the JIT from dropping work whose result is not returned. */
  private static volatile long sink;

  private static long fakeOnly(FakeCdcClient client, ChangeQuery q) {
    long touched = 0;
    long h = 0;
    try (ChangeCursor c = client.changes(q)) {
      while (c.next()) {
        touched += c.operation() + c.commandId() + c.startLsn().low() + c.commitTime().getNano();
        for (int i = 0; i < q.columns().size(); i++) {
          Object v = c.value(i);
          touched += v == null ? 0 : 1;
        }
        touched += c.seqval().low();
        h = 31 * h + (Long) c.value(0);
      }
    }
    sink += touched;
    return h;
  }

  private static long fakeAndConnector(FakeCdcClient client, ChangeQuery q, StructType schema, String ci) {
    ChangeRowConverter conv = new ChangeRowConverter(schema, ci);
    UnsafeProjection proj = UnsafeProjection.create(schema);
    long sum = 0;
    try (ChangeCursor c = client.changes(q)) {
      while (c.next()) {
        sum = 31 * sum + proj.apply(conv.convert(c)).getLong(6); // id, after the 6 metadata columns
      }
    }
    return sum;
  }
}
