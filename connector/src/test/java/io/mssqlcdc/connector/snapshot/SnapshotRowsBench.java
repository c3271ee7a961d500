package io.mssqlcdc.connector.snapshot;

import io.mssqlcdc.client.RowCursor;
import io.mssqlcdc.lsn.Lsn;
import io.mssqlcdc.options.CdcReaderOptions;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.StructType;

/**
 * What building snapshot rows costs on top of the client's cursor, measured in one run against a
 * baseline over the same synthetic cursor (no database, no Spark job):
 *
 * <ul>
 *   <li>{@code cursor}: the baseline. It iterates the cursor and copies each value into an
 *       {@code Object[]}.
 *   <li>{@code rows}: {@link SnapshotRows#row}, the partition reader's work per row: casting each
 *       value to its Spark type into the reader's reused row (the metadata constants are set once).
 * </ul>
 *
 * It also reports the heap in use after a GC, before and after {@code rows} reads all N rows.
 * Memory does not grow with N, because nothing is kept per row.
 *
 * <p>Args: {@code [rows=2000000] [rounds=5]}. Run:
 * {@code java -cp <connector test classpath> io.mssqlcdc.connector.snapshot.SnapshotRowsBench}
 */
public final class SnapshotRowsBench {
  private static final StructType CAPTURED =
      StructType.fromDDL("id INT, name STRING, amount DECIMAL(18,2), created TIMESTAMP_NTZ, flag BOOLEAN");
  /** Position of {@code id} in a built row: after the 6 metadata columns. */
  private static final int ID = 6;

  private SnapshotRowsBench() {}

  public static void main(String[] args) {
    int rows = args.length > 0 ? Integer.parseInt(args[0]) : 2_000_000;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    System.out.println(run(rows, rounds).report());
  }

  /**
   * The report, and what each variant added up from the ids it produced, in order, in every round
   * ({@code h = 31 * h + id}): equal when {@code rows} built every row of the cursor with its id.
   */
  record Result(String report, List<Long> cursorChecksums, List<Long> rowsChecksums) {}

  /** Runs every variant {@code rounds} times over {@code rows} rows. */
  static Result run(int rows, int rounds) {
    SnapshotRead read = read();
    long[] best = {Long.MAX_VALUE, Long.MAX_VALUE};
    List<Long> cursorSums = new ArrayList<>();
    List<Long> rowsSums = new ArrayList<>();
    long heapBefore = 0;
    long heapAfter = 0;
    for (int r = 0; r < rounds; r++) {
      long t0 = System.nanoTime();
      cursorSums.add(baseline(new SyntheticCursor(rows)));
      long t1 = System.nanoTime();
      heapBefore = usedHeapAfterGc();
      long t2 = System.nanoTime();
      rowsSums.add(built(read, new SyntheticCursor(rows)));
      long t3 = System.nanoTime();
      heapAfter = usedHeapAfterGc();
      best[0] = Math.min(best[0], t1 - t0);
      best[1] = Math.min(best[1], t3 - t2);
    }
    double cursorNs = (double) best[0] / rows;
    double rowsNs = (double) best[1] / rows;
    String report = String.format(Locale.ROOT,
        "SnapshotRowsBench: %,d rows x %d rounds (best round per variant; checksums %d/%d)%n"
            + "  cursor  %8.1f ns/row  x1.00 of cursor%n"
            + "  rows    %8.1f ns/row  x%.2f of cursor%n"
            + "  heap in use after GC: %.1f MB before reading, %.1f MB after reading %,d rows%n",
        rows, rounds, cursorSums.get(0), rowsSums.get(0), cursorNs, rowsNs, rowsNs / cursorNs,
        heapBefore / 1e6, heapAfter / 1e6, rows);
    return new Result(report, cursorSums, rowsSums);
  }

  private static long baseline(RowCursor cursor) {
    long h = 0;
    while (cursor.next()) {
      Object[] values = new Object[5];
      for (int i = 0; i < 5; i++) {
        values[i] = cursor.value(i);
      }
      h = 31 * h + (Integer) values[0];
    }
    return h;
  }

  private static long built(SnapshotRead read, RowCursor cursor) {
    SnapshotRows rows = new SnapshotRows(read, null);
    long h = 0;
    while (cursor.next()) {
      InternalRow row = rows.row(cursor);
      h = 31 * h + row.getInt(ID);
    }
    return h;
  }

  private static SnapshotRead read() {
    CdcReaderOptions options = CdcReaderOptions.parse(
        Map.of("backend", "fake", "fakePath", "/nonexistent", "captureInstance", "dbo_t"),
        CdcReaderOptions.Reader.SNAPSHOT);
    List<String> names = List.of(CAPTURED.fieldNames());
    PresentColumns present = new PresentColumns(names, new int[] {0, 1, 2, 3, 4}, List.of(), List.of());
    return new SnapshotRead(options, SnapshotSchema.of(CAPTURED, true, false), "dbo_t",
        new SnapshotStamp(Lsn.of(42, 7), Instant.parse("2026-01-01T00:00:00Z")), present, false);
  }

  private static long usedHeapAfterGc() {
    Runtime rt = Runtime.getRuntime();
    System.gc();
    return rt.totalMemory() - rt.freeMemory();
  }

  /** Rows of five mixed-type columns, values drawn from small pre-built pools (no per-row state kept). */
  private static final class SyntheticCursor implements RowCursor {
    private static final String[] NAMES = new String[64];
    private static final BigDecimal[] AMOUNTS = new BigDecimal[64];
    private static final LocalDateTime[] TIMES = new LocalDateTime[64];

    static {
      for (int i = 0; i < 64; i++) {
        NAMES[i] = "customer-" + i;
        AMOUNTS[i] = new BigDecimal(i + ".25");
        TIMES[i] = LocalDateTime.of(2026, 1, 1, 0, 0).plusMinutes(i);
      }
    }

    private final int rows;
    private int i = -1;

    SyntheticCursor(int rows) {
      this.rows = rows;
    }

    @Override
    public boolean next() {
      return ++i < rows;
    }

    @Override
    public Object value(int column) {
      return switch (column) {
        case 0 -> i;
        case 1 -> NAMES[i & 63];
        case 2 -> AMOUNTS[i & 63];
        case 3 -> TIMES[i & 63];
        default -> (i & 1) == 0;
      };
    }

    @Override
    public void close() {}
  }
}
