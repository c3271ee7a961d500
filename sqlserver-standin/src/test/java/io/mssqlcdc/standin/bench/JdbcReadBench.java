package io.mssqlcdc.standin.bench;

import static io.mssqlcdc.fake.FakeRows.row;

import io.mssqlcdc.client.ChangeCursor;
import io.mssqlcdc.client.ChangeQuery;
import io.mssqlcdc.client.CdcClient;
import io.mssqlcdc.client.jdbc.SqlCdcClient;
import io.mssqlcdc.fake.FakeCdcClient;
import io.mssqlcdc.fake.FakeCdcDatabase;
import io.mssqlcdc.lsn.Lsn;
import io.mssqlcdc.options.CdcReaderOptions;
import io.mssqlcdc.standin.SqlServerStandIn;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * The client-side cost of the JDBC path: N change rows of six mixed-type columns read through
 * {@code SqlCdcClient} → mssql-jdbc → TDS over loopback → the stand-in, against the same rows read
 * through the fake's own cursor (the baseline), in the same run. The stand-in runs in this JVM,
 * so the {@code jdbc} wall time includes the server side's TDS encoding as well (on another
 * thread, sharing the cores); the reading thread's CPU time per row is the client's own cost:
 * mssql-jdbc's decoding, {@code JdbcValues}, LSN and commit-time parsing.
 *
 * <p>Args: {@code [rows=200000] [rounds=5]}. Run:
 * {@code mvn -B -ntp -pl sqlserver-standin -am verify -Dtest=JdbcReadBenchSmokeTest -Dsurefire.failIfNoSpecifiedTests=false
 * -Dbench.rows=200000 -Dbench.rounds=5}.
 */
public final class JdbcReadBench {
  private static final List<String> COLUMNS = List.of("id", "name", "amount", "created", "guid", "flag");
  private static final int COMMITS = 10;

  private JdbcReadBench() {}

  public static void main(String[] args) throws IOException {
    int rows = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    Path dir = Files.createTempDirectory("jdbc-bench");
    try {
      System.out.println(run(dir, rows, rounds));
    } finally {
      try (Stream<Path> files = Files.walk(dir)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  /** Runs the bench over a fake database made in {@code dir}; returns the report. */
  public static String run(Path dir, int rows, int rounds) {
    Lsn last = write(dir, rows);
    try (SqlServerStandIn standIn = SqlServerStandIn.start(dir)) {
      Map<String, String> options = Map.of("backend", "jdbc", "connectionString", standIn.jdbcUrl(),
          "captureInstance", "dbo_bench");
      String[] names = {"fake", "jdbc"};
      List<Supplier<CdcClient>> clients = List.of(() -> FakeCdcClient.open(dir),
          () -> SqlCdcClient.open(CdcReaderOptions.parse(options, CdcReaderOptions.Reader.STREAM)));
      long[][] ns = new long[names.length][rounds];
      long[][] cpu = new long[names.length][rounds];
      java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
      for (int warm = 0; warm < 2; warm++) {
        for (Supplier<CdcClient> c : clients) {
          read(c, last);
        }
      }
      for (int r = 0; r < rounds; r++) {
        for (int v = 0; v < names.length; v++) {
          long t0 = System.nanoTime();
          long c0 = mx.getCurrentThreadCpuTime();
          long check = read(clients.get(v), last);
          ns[v][r] = System.nanoTime() - t0;
          cpu[v][r] = mx.getCurrentThreadCpuTime() - c0;
          if (check != (long) rows * (COLUMNS.size() + 1)) {
            throw new IllegalStateException(names[v] + " read " + check + " values, not " + rows * (COLUMNS.size() + 1));
          }
        }
      }
      standIn.clearExecuted();
      StringBuilder out = new StringBuilder();
      out.append(String.format(Locale.ROOT, "JdbcReadBench: %,d rows x 6 columns in %d commits, median of %d rounds"
          + " after 2 warm-up rounds (client and stand-in in one JVM)%n", rows, COMMITS, rounds));
      double base = median(ns[0]);
      double baseCpu = median(cpu[0]);
      for (int v = 0; v < names.length; v++) {
        double m = median(ns[v]);
        double c = median(cpu[v]);
        double min = Arrays.stream(ns[v]).min().orElseThrow();
        out.append(String.format(Locale.ROOT, "  %-5s %8.1f ns/row %,12.0f rows/s  x%.2f of fake  (best round %.1f ns/row);"
            + " reading thread's CPU %.1f ns/row, x%.2f of fake%n",
            names[v], m / rows, rows / (m / 1e9), m / base, min / rows, c / rows, c / baseCpu));
      }
      return out.toString();
    }
  }

  private static Lsn write(Path dir, int rows) {
    try (FakeCdcDatabase db = FakeCdcDatabase.create(dir)) {
      db.createTable("dbo", "bench", "id bigint", "name nvarchar(50)", "amount decimal(18,2)", "created datetime2(3)",
          "guid uniqueidentifier", "flag bit");
      db.enableCdc("dbo", "bench");
      LocalDateTime t0 = LocalDateTime.parse("2026-01-01T00:00:00");
      java.util.Random random = new java.util.Random(7);
      int perCommit = Math.max(1, rows / COMMITS);
      Lsn lsn = null;
      for (int start = 0; start < rows; start += perCommit) {
        int from = start;
        int to = Math.min(rows, start + perCommit);
        lsn = db.commit(tx -> {
          for (int i = from; i < to; i++) {
            tx.insert("dbo.bench", row("id", (long) i, "name", "customer-" + (i % 5000), "amount",
                BigDecimal.valueOf(random.nextInt(1_000_000), 2), "created", t0.plusSeconds(i), "guid",
                new UUID(random.nextLong(), random.nextLong()).toString(), "flag", i % 2 == 0));
          }
        });
      }
      return lsn;
    }
  }

  /** Reads every row's values; returns how many values (non-null, plus the operation) it saw. */
  private static long read(Supplier<CdcClient> open, Lsn last) {
    long n = 0;
    try (CdcClient client = open.get();
        ChangeCursor c = client.changes(new ChangeQuery("dbo_bench", Lsn.ZERO, last, COLUMNS, true, 10_000))) {
      while (c.next()) {
        for (int i = 0; i < COLUMNS.size(); i++) {
          n += c.value(i) == null ? 0 : 1;
        }
        n += c.operation() == 2 ? 1 : 0;
      }
    }
    return n;
  }

  private static double median(long[] v) {
    long[] s = v.clone();
    Arrays.sort(s);
    return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2.0;
  }
}
