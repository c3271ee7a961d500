package io.mssqlcdc.connector.stream;

import static io.mssqlcdc.fake.FakeRows.row;

import io.mssqlcdc.client.ChangeCursor;
import io.mssqlcdc.client.ChangeQuery;
import io.mssqlcdc.connector.SchemaInference;
import io.mssqlcdc.fake.FakeCdcClient;
import io.mssqlcdc.fake.FakeCdcDatabase;
import io.mssqlcdc.lsn.Lsn;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * The row-path bench (issue item 7): N change rows from the fake's cursor into what Spark consumes,
 * (a) row-based: {@link ChangeRowConverter} → {@code InternalRow} → {@code UnsafeProjection}
 * (what {@code DataSourceV2ScanExec} does to a row-based reader), versus (b) columnar: the same
 * values into Arrow vectors ({@code arrow-vector}, Spark's copy) in batches of 4,096, handed over
 * as {@link ColumnarBatch} and turned into {@code UnsafeRow}s (what Spark's ColumnarToRow does
 * for the sinks this library feeds: Delta writes and foreachBatch consume rows). Both runs in
 * the same JVM; the ratio is reported. Run: {@code RowPathBench.main(n, rounds)}.
 */
public final class RowPathBench {
  static final int BATCH = 4096;
  /** Rows per commit of the scripted history: segments the fake can keep decoded. */
  static final int COMMIT_ROWS = 10_000;

  private RowPathBench() {}

  /**
   * Result of one comparison: nanoseconds per row for each path, their ratio, and what each path
   * added up from the rows Spark gets ({@link #checksum}): equal when both read the same values in
   * the same order.
   */
  record Result(long rows, double rowNsPerRow, double columnarNsPerRow, long rowChecksum, long columnarChecksum) {
    double ratio() {
      return columnarNsPerRow / rowNsPerRow;
    }

    @Override
    public String toString() {
      return String.format(java.util.Locale.ROOT,
          "rows=%d row-based=%.1f ns/row columnar(arrow)=%.1f ns/row columnar/row ratio=%.2f checksums %d/%d",
          rows, rowNsPerRow, columnarNsPerRow, ratio(), rowChecksum, columnarChecksum);
    }
  }

  public static void main(String[] args) throws IOException {
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    System.out.println(run(n, rounds));
  }

  static Result run(int n, int rounds) throws IOException {
    Path dir = Files.createTempDirectory("row-path-bench");
    try (FakeCdcDatabase db = FakeCdcDatabase.create(dir)) {
      db.createTable("dbo", "t", "id int", "name nvarchar(50)", "qty bigint");
      String ci = db.enableCdc("dbo", "t");
      Lsn first = null;
      Lsn last = null;
      for (int done = 0; done < n; done += COMMIT_ROWS) {
        int from = done;
        int to = Math.min(n, done + COMMIT_ROWS);
        last = db.commit(tx -> {
          for (int k = from; k < to; k++) {
            tx.insert("t", row("id", k, "name", "customer-" + k, "qty", (long) k));
          }
        });
        first = first == null ? last : first;
      }
      StructType captured = StructType.fromDDL("id INT, name STRING, qty BIGINT");
      StructType schema = SchemaInference.withMetadata(captured, true);
      ChangeQuery q = new ChangeQuery(ci, first, last, List.of("id", "name", "qty"), true, 10_000);
      long bestRow = Long.MAX_VALUE;
      long bestCol = Long.MAX_VALUE;
      long rowSum = 0;
      long colSum = 0;
      try (FakeCdcClient client = db.client()) {
        for (int r = 0; r < rounds; r++) {
          long t0 = System.nanoTime();
          long rs = rowBased(client, q, schema);
          long t1 = System.nanoTime();
          long cs = columnar(client, q, schema);
          long t2 = System.nanoTime();
          bestRow = Math.min(bestRow, t1 - t0);
          bestCol = Math.min(bestCol, t2 - t1);
          if (r == 0) {
            rowSum = rs;
            colSum = cs;
          } else if (rs != rowSum || cs != colSum) {
            throw new IllegalStateException("round " + r + " read other values than round 0");
          }
        }
      }
      return new Result(n, (double) bestRow / n, (double) bestCol / n, rowSum, colSum);
    } finally {
      try (Stream<Path> walk = Files.walk(dir)) {
        walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  /**
   * What both paths add up per row, from the {@code UnsafeRow} Spark gets: id + qty + UTF-8 bytes
   * of name, folded in read order ({@code sum = 31 * sum + checksum(row)}).
   */
  private static long checksum(UnsafeRow u) {
    return u.getInt(6) + u.getLong(8) + u.getUTF8String(7).numBytes();
  }

  private static long rowBased(FakeCdcClient client, ChangeQuery q, StructType schema) {
    ChangeRowConverter conv = new ChangeRowConverter(schema, q.captureInstance());
    UnsafeProjection proj = UnsafeProjection.create(schema);
    long sum = 0;
    try (ChangeCursor c = client.changes(q)) {
      while (c.next()) {
        sum = 31 * sum + checksum(proj.apply(conv.convert(c)));
      }
    }
    return sum;
  }

  /** The same 9 columns (6 metadata + 3 captured) into Arrow vectors, then rows as Spark would take them. */
  private static long columnar(FakeCdcClient client, ChangeQuery q, StructType schema) {
    UnsafeProjection proj = UnsafeProjection.create(schema);
    byte[] ciBytes = q.captureInstance().getBytes(StandardCharsets.UTF_8);
    long sum = 0;
    try (BufferAllocator alloc = new RootAllocator();
        VarCharVector ci = new VarCharVector("ci", alloc);
        VarCharVector lsn = new VarCharVector("lsn", alloc);
        VarCharVector seq = new VarCharVector("seq", alloc);
        IntVector op = new IntVector("op", alloc);
        IntVector cmd = new IntVector("cmd", alloc);
        TimeStampMicroVector ts = new TimeStampMicroVector("ts", alloc);
        IntVector id = new IntVector("id", alloc);
        VarCharVector name = new VarCharVector("name", alloc);
        BigIntVector qty = new BigIntVector("qty", alloc);
        ChangeCursor c = client.changes(q)) {
      ColumnVector[] cols = {new ArrowColumnVector(ci), new ArrowColumnVector(lsn), new ArrowColumnVector(seq),
          new ArrowColumnVector(op), new ArrowColumnVector(cmd), new ArrowColumnVector(ts),
          new ArrowColumnVector(id), new ArrowColumnVector(name), new ArrowColumnVector(qty)};
      org.apache.arrow.vector.ValueVector[] all = {ci, lsn, seq, op, cmd, ts, id, name, qty};
      boolean more = true;
      while (more) {
        for (org.apache.arrow.vector.ValueVector v : all) {
          v.setInitialCapacity(BATCH);
          v.allocateNew();
        }
        int k = 0;
        while (k < BATCH && (more = c.next())) {
          ci.setSafe(k, ciBytes);
          lsn.setSafe(k, c.startLsn().toString().getBytes(StandardCharsets.UTF_8));
          seq.setSafe(k, c.seqval().toString().getBytes(StandardCharsets.UTF_8));
          op.setSafe(k, c.operation());
          cmd.setSafe(k, c.commandId());
          java.time.Instant t = c.commitTime();
          ts.setSafe(k, t.getEpochSecond() * 1_000_000L + t.getNano() / 1000);
          id.setSafe(k, (Integer) c.value(0));
          name.setSafe(k, ((String) c.value(1)).getBytes(StandardCharsets.UTF_8));
          qty.setSafe(k, (Long) c.value(2));
          k++;
        }
        for (org.apache.arrow.vector.ValueVector v : all) {
          v.setValueCount(k);
        }
        ColumnarBatch batch = new ColumnarBatch(cols, k);
        java.util.Iterator<InternalRow> it = batch.rowIterator();
        while (it.hasNext()) {
          sum = 31 * sum + checksum(proj.apply(it.next()));
        }
      }
    }
    return sum;
  }
}
