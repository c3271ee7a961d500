package io.mssqlcdc.fake.bench;

import static io.mssqlcdc.fake.FakeRows.row;

import io.mssqlcdc.client.ChangeCursor;
import io.mssqlcdc.client.ChangeQuery;
import io.mssqlcdc.fake.FakeCdcClient;
import io.mssqlcdc.fake.FakeCdcDatabase;
import io.mssqlcdc.lsn.Lsn;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * Reads N change rows of six mixed-type columns through {@link FakeCdcClient#changes} and
 * compares, in the same run, with baselines over the same values held in memory:
 *
 * <ul>
 *   <li>{@code memory}: iterate an {@code Object[][]}, building an {@code Object[]} per row (the floor);
 *   <li>{@code convert}: the same plus Spark-like per-row conversion (UTF-8 bytes of strings, unscaled
 *       longs of decimals, epoch micros of timestamps): a stand-in for the connector's own work;
 *   <li>{@code fake}: the fake's cursor; {@code fake+convert}: the cursor plus the conversion.
 * </ul>
 *
 * Args: {@code [rows=1000000] [rounds=5]}. Run (see docs/FAKE.md):
 * {@code java -cp core/target/classes:fake/target/classes:fake/target/test-classes io.mssqlcdc.fake.bench.ChangeReadBench}
 */
public final class ChangeReadBench {
  private static final List<String> COLUMNS = List.of("id", "name", "amount", "created", "guid", "flag");
  private static final int COMMITS = 10;

  private ChangeReadBench() {}

  /** One measured variant: returns a checksum so the JIT cannot drop the work. */
  private interface Variant {
    long run();
  }

  public static void main(String[] args) throws IOException {
    int rows = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    Path dir = Files.createTempDirectory("fake-bench");
    try {
      System.out.println(run(dir, rows, rounds).report());
    } finally {
      try (Stream<Path> files = Files.walk(dir)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  /**
   * The report, and per variant the checksum of every round (warm-up rounds first): equal values
   * read give equal checksums, so {@code memory} and {@code fake} agree (non-NULL values), and so
   * do {@code convert} and {@code fake+convert} (the converted values).
   */
  public record Result(String report, Map<String, List<Long>> checksums) {}

  /** Runs the bench in {@code dir}. */
  public static Result run(Path dir, int rows, int rounds) {
    Object[][] data = values(rows);
    long writeStart = System.nanoTime();
    Lsn last;
    try (FakeCdcDatabase db = FakeCdcDatabase.create(dir)) {
      db.createTable("dbo", "bench", "id bigint", "name nvarchar(50)", "amount decimal(18,2)", "created datetime2(3)",
          "guid uniqueidentifier", "flag bit");
      db.enableCdc("dbo", "bench");
      int perCommit = Math.max(1, rows / COMMITS);
      Lsn lsn = null;
      for (int start = 0; start < rows; start += perCommit) {
        int from = start;
        int to = Math.min(rows, start + perCommit);
        lsn = db.commit(tx -> {
          for (int i = from; i < to; i++) {
            Object[] v = data[i];
            tx.insert("dbo.bench", row("id", v[0], "name", v[1], "amount", v[2], "created", v[3], "guid", v[4], "flag", v[5]));
          }
        });
      }
      last = lsn;
    }
    long writeMs = (System.nanoTime() - writeStart) / 1_000_000;

    Variant memory = () -> {
      long h = 0;
      for (Object[] src : data) {
        Object[] r = new Object[src.length];
        for (int i = 0; i < src.length; i++) {
          r[i] = src[i];
        }
        h += consume(r);
      }
      return h;
    };
    Variant convert = () -> {
      long h = 0;
      for (Object[] src : data) {
        Object[] r = new Object[src.length];
        for (int i = 0; i < src.length; i++) {
          r[i] = src[i];
        }
        h = 31 * h + convert(r); // order-sensitive: rows in another order give another sum
      }
      return h;
    };
    Variant fake = () -> readFake(dir, last, false);
    Variant fakeConvert = () -> readFake(dir, last, true);

    String[] names = {"memory", "convert", "fake", "fake+convert"};
    Variant[] variants = {memory, convert, fake, fakeConvert};
    long[][] ns = new long[variants.length][rounds];
    Map<String, List<Long>> checksums = new LinkedHashMap<>();
    for (String name : names) {
      checksums.put(name, new ArrayList<>());
    }
    for (int warm = 0; warm < 2; warm++) {
      for (int v = 0; v < variants.length; v++) {
        checksums.get(names[v]).add(variants[v].run());
      }
    }
    for (int r = 0; r < rounds; r++) {
      for (int v = 0; v < variants.length; v++) {
        long t0 = System.nanoTime();
        long check = variants[v].run();
        ns[v][r] = System.nanoTime() - t0;
        checksums.get(names[v]).add(check);
      }
    }
    StringBuilder out = new StringBuilder();
    out.append(String.format(Locale.ROOT, "ChangeReadBench: %,d rows x 6 columns in %d commits (written in %,d ms),"
        + " median of %d rounds after 2 warm-up rounds%n", rows, COMMITS, writeMs, rounds));
    long[] opens = new long[50];
    for (int i = 0; i < opens.length; i++) {
      long t0 = System.nanoTime();
      try (FakeCdcClient client = FakeCdcClient.open(dir)) {
        client.maxLsn();
      }
      opens[i] = System.nanoTime() - t0;
    }
    out.append(String.format(Locale.ROOT, "  open + maxLsn: %.0f us (median of %d)%n", median(opens) / 1000, opens.length));
    double base = median(ns[0]);
    double conv = median(ns[1]);
    double baseMin = Arrays.stream(ns[0]).min().orElseThrow();
    for (int v = 0; v < variants.length; v++) {
      double m = median(ns[v]);
      double min = Arrays.stream(ns[v]).min().orElseThrow();
      out.append(String.format(Locale.ROOT, "  %-13s %8.1f ns/row %,14.0f rows/s  x%.2f of memory  x%.2f of convert"
          + "  (best round: %.1f ns/row, x%.2f of memory)%n",
          names[v], m / rows, rows / (m / 1e9), m / base, m / conv, min / rows, min / baseMin));
    }
    return new Result(out.toString(), checksums);
  }

  private static long readFake(Path dir, Lsn last, boolean convert) {
    long h = 0;
    try (FakeCdcClient client = FakeCdcClient.open(dir);
        ChangeCursor c = client.changes(new ChangeQuery("dbo_bench", Lsn.ZERO, last, COLUMNS, true, 10_000))) {
      Object[] r = new Object[COLUMNS.size()];
      while (c.next()) {
        for (int i = 0; i < r.length; i++) {
          r[i] = c.value(i);
        }
        h = convert ? 31 * h + convert(r) : h + consume(r);
      }
    }
    return h;
  }

  private static long consume(Object[] r) {
    long h = 0;
    for (Object v : r) {
      h += v == null ? 0 : 1;
    }
    return h;
  }

  /** Spark-like conversion of one row to primitives and bytes. */
  private static long convert(Object[] r) {
    long h = (Long) r[0];
    h += ((String) r[1]).getBytes(StandardCharsets.UTF_8).length;
    h += ((BigDecimal) r[2]).unscaledValue().longValue();
    LocalDateTime t = (LocalDateTime) r[3];
    h += t.toEpochSecond(ZoneOffset.UTC) * 1_000_000 + t.getNano() / 1000;
    h += ((String) r[4]).getBytes(StandardCharsets.UTF_8).length;
    h += ((Boolean) r[5]) ? 1 : 0;
    return h;
  }

  private static Object[][] values(int rows) {
    Object[][] data = new Object[rows][];
    LocalDateTime t0 = LocalDateTime.parse("2026-01-01T00:00:00");
    java.util.Random random = new java.util.Random(7);
    for (int i = 0; i < rows; i++) {
      data[i] = new Object[] {
          (long) i,
          "customer-" + (i % 5000),
          BigDecimal.valueOf(random.nextInt(1_000_000), 2),
          t0.plusNanos(i * 1_000_000L),
          new UUID(random.nextLong(), random.nextLong()).toString().toUpperCase(Locale.ROOT),
          (i & 1) == 0};
    }
    return data;
  }

  private static double median(long[] values) {
    long[] s = values.clone();
    Arrays.sort(s);
    return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2.0;
  }

}
