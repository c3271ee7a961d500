package io.mssqlcdc.bench;

import java.io.Serializable;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.catalog.TableProvider;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.read.streaming.MicroBatchStream;
import org.apache.spark.sql.connector.read.streaming.Offset;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * A bench-only streaming source whose reader costs nothing per row: it serves rows held in this JVM's
 * memory ({@link #hold}), in one micro-batch split into a given number of partitions. Spark's share of a
 * row source's micro-batch, its machinery, the projection it applies to every row and the sink's loop,
 * is then all that is timed: the floor any source of those rows can reach through Spark's micro-batch
 * stream (local mode only: the rows live in the driver's JVM, which is the executors' there).
 *
 * <p>Options: {@code key} (what {@link #hold} returned), {@code partitions} (default 2).
 */
public final class HeldRowsSource implements TableProvider {
  private static final Map<String, Held> HELD = new ConcurrentHashMap<>();

  private record Held(StructType schema, InternalRow[] rows) {}

  /**
   * Holds {@code df}'s rows (collected as Spark's own rows, in the JVM's memory) under a key to pass
   * as the source's {@code key} option; holding another Dataset under the same key replaces it.
   */
  public static String hold(String key, Dataset<Row> df) {
    InternalRow[] rows = df.queryExecution().executedPlan().executeCollect();
    HELD.put(key, new Held(df.schema(), rows));
    return key;
  }

  /** Lets go of the rows held under {@code key}. */
  public static void release(String key) {
    HELD.remove(key);
  }

  private static Held held(String key) {
    Held h = HELD.get(key);
    if (h == null) {
      throw new IllegalStateException("no rows are held under key '" + key + "': call HeldRowsSource.hold first");
    }
    return h;
  }

  @Override
  public StructType inferSchema(CaseInsensitiveStringMap options) {
    return held(options.get("key")).schema();
  }

  @Override
  public Table getTable(StructType schema, Transform[] partitioning, Map<String, String> properties) {
    String key = properties.get("key");
    int partitions = Integer.parseInt(properties.getOrDefault("partitions", "2"));
    return new HeldTable(key, schema, partitions);
  }

  private record HeldTable(String key, StructType schema, int partitions) implements Table, SupportsRead {
    @Override
    public String name() {
      return "held rows " + key;
    }

    @Override
    public Set<TableCapability> capabilities() {
      return Set.of(TableCapability.MICRO_BATCH_READ);
    }

    @Override
    public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
      return () -> new Scan() {
        @Override
        public StructType readSchema() {
          return schema;
        }

        @Override
        public MicroBatchStream toMicroBatchStream(String checkpointLocation) {
          return new HeldStream(key, held(key).rows().length, partitions);
        }
      };
    }
  }

  /** Offset 0 before the rows, 1 after them: one micro-batch holds them all. */
  private static final class Position extends Offset {
    private final long value;

    Position(long value) {
      this.value = value;
    }

    @Override
    public String json() {
      return Long.toString(value);
    }
  }

  private record Slice(String key, int from, int to) implements InputPartition, Serializable {}

  private record HeldStream(String key, int rows, int partitions) implements MicroBatchStream {
    @Override
    public Offset latestOffset() {
      return new Position(1);
    }

    @Override
    public InputPartition[] planInputPartitions(Offset start, Offset end) {
      InputPartition[] out = new InputPartition[partitions];
      for (int p = 0; p < partitions; p++) {
        out[p] = new Slice(key, (int) ((long) rows * p / partitions), (int) ((long) rows * (p + 1) / partitions));
      }
      return out;
    }

    @Override
    public PartitionReaderFactory createReaderFactory() {
      return new SliceReaders();
    }

    @Override
    public Offset initialOffset() {
      return new Position(0);
    }

    @Override
    public Offset deserializeOffset(String json) {
      return new Position(Long.parseLong(json.trim()));
    }

    @Override
    public void commit(Offset end) {}

    @Override
    public void stop() {}
  }

  private static final class SliceReaders implements PartitionReaderFactory {
    private static final long serialVersionUID = 1L;

    @Override
    public PartitionReader<InternalRow> createReader(InputPartition partition) {
      Slice s = (Slice) partition;
      InternalRow[] rows = held(s.key()).rows();
      return new PartitionReader<>() {
        private int next = s.from();
        private InternalRow current;

        @Override
        public boolean next() {
          if (next >= s.to()) {
            return false;
          }
          current = rows[next++];
          return true;
        }

        @Override
        public InternalRow get() {
          return current;
        }

        @Override
        public void close() {}
      };
    }
  }

  /** The option map that reads the rows held under {@code key} in {@code partitions} partitions. */
  public static Map<String, String> options(String key, int partitions) {
    return Map.of("key", key, "partitions", Integer.toString(partitions));
  }
}
