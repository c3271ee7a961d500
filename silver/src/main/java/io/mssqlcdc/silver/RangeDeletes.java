package io.mssqlcdc.silver;

import static org.apache.spark.sql.functions.broadcast;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;

import io.mssqlcdc.connector.CdcColumns;
import io.mssqlcdc.sink.tables.DeltaTables;
import io.mssqlcdc.sink.tables.TableRef;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A chunk's range deletes (reference-behaviour §16 step 12, §33 O9): a chunk read at stamp L saw
 * every commit up to L, so a silver key inside its range {@code [lo, hi)} that it does not hold,
 * whose image is older than L, was gone by then: it becomes a delete (operation 1) stamped L, with
 * every other column NULL, so a real change at L outranks it. This is how the keys deleted during a
 * re-snapshot's purged gap leave silver wave by wave, before the completion rebuild removes the
 * rest. Only for a single key column, the one the snapshot's chunks are cut on, of an integer,
 * DATE or TIMESTAMP_NTZ type ({@link ChunkBounds}). A NULL key is in no range unless both bounds
 * are open.
 */
final class RangeDeletes {
  private static final Logger LOG = LoggerFactory.getLogger(RangeDeletes.class);

  private RangeDeletes() {}

  /** Whether chunk ranges may delete silver's keys: silver's key is exactly the snapshot's one cut column. */
  static boolean applies(List<String> keys, List<String> cut) {
    return keys.size() == 1 && cut != null && cut.equals(keys);
  }

  /** The kind of key range deletes handle, for {@code type}; empty for the others. */
  static Optional<ChunkBounds.KeyKind> kind(DataType type) {
    if (type instanceof ByteType || type instanceof ShortType || type instanceof IntegerType
        || type instanceof LongType) {
      return Optional.of(ChunkBounds.KeyKind.INTEGRAL);
    }
    if (type instanceof DateType) {
      return Optional.of(ChunkBounds.KeyKind.DATE);
    }
    if (type instanceof TimestampNTZType) {
      return Optional.of(ChunkBounds.KeyKind.TIMESTAMP_NTZ);
    }
    return Optional.empty();
  }

  /**
   * The synthetic deletes of {@code chunks} against silver's rows; empty when the key's type takes
   * none or no chunk has usable bounds. Columns: {@code key}, {@code _start_lsn}, {@code _operation}.
   *
   * @param held the chunks' rows' keys (column {@code key})
   */
  static Optional<Dataset<Row>> rows(SparkSession spark, TableRef silver, String key, DataType keyType,
      Collection<Chunk> chunks, Dataset<Row> held) {
    Optional<ChunkBounds.KeyKind> kind = kind(keyType);
    if (kind.isEmpty()) {
      return Optional.empty();
    }
    List<Row> ranges = new ArrayList<>();
    List<Object[]> bounds = new ArrayList<>();
    for (Chunk c : chunks) {
      try {
        Object lo = ChunkBounds.bound(c.lo(), kind.get(), true).value();
        Object hi = ChunkBounds.bound(c.hi(), kind.get(), false).value();
        ranges.add(RowFactory.create(lo, hi, c.stamp()));
        bounds.add(new Object[] {lo, hi, c.stamp()});
      } catch (ChunkBounds.Overflow e) {
        LOG.info("Chunk {} of the open snapshot deletes no key by range: {}", c.index(), e.getMessage());
      }
    }
    if (ranges.isEmpty()) {
      return Optional.empty();
    }
    DataType boundType = kind.get() == ChunkBounds.KeyKind.INTEGRAL ? DataTypes.LongType : keyType;
    StructType schema = new StructType().add("lo", boundType).add("hi", boundType).add("l", DataTypes.StringType);
    Dataset<Row> r = broadcast(spark.createDataFrame(ranges, schema)).as("r");

    // The ranges' span as literals, which Delta's file statistics prune silver by before the join.
    Column k = col(MergeRules.quote(key));
    String maxStamp = bounds.stream().map(b -> (String) b[2]).reduce(Lsns::max).orElseThrow();
    Column near = col(CdcColumns.START_LSN).lt(lit(maxStamp));
    if (bounds.stream().allMatch(b -> b[0] != null)) {
      near = near.and(k.geq(lit(bounds.stream().map(b -> b[0]).reduce(RangeDeletes::least).orElseThrow())
          .cast(boundType)));
    }
    if (bounds.stream().allMatch(b -> b[1] != null)) {
      near = near.and(k.lt(lit(bounds.stream().map(b -> b[1]).reduce(RangeDeletes::greatest).orElseThrow())
          .cast(boundType)));
    }
    Dataset<Row> t = DeltaTables.read(spark, silver).where(near).as("t");
    Column tk = col("t." + MergeRules.quote(key));
    Column inside = col("r.lo").isNull().or(tk.geq(col("r.lo")))
        .and(col("r.hi").isNull().or(tk.lt(col("r.hi"))))
        .and(col("t." + CdcColumns.START_LSN).lt(col("r.l")));
    Dataset<Row> gone = t.join(r, inside).select(tk.as(key), col("r.l").as(CdcColumns.START_LSN),
        lit(1).as(CdcColumns.OPERATION));
    Dataset<Row> g = gone.as("g");
    Dataset<Row> h = held.as("h");
    return Optional.of(g.join(h, col("g." + MergeRules.quote(key)).eqNullSafe(col("h." + MergeRules.quote(key))),
        "left_anti"));
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static Object least(Object a, Object b) {
    return ((Comparable) a).compareTo(b) <= 0 ? a : b;
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static Object greatest(Object a, Object b) {
    return ((Comparable) a).compareTo(b) >= 0 ? a : b;
  }
}
