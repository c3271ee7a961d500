package io.mssqlcdc.reconcile;

import static io.mssqlcdc.reconcile.ReconcileRun.c;
import static io.mssqlcdc.reconcile.ReconcileRun.find;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.max;
import static org.apache.spark.sql.functions.unhex;
import static org.apache.spark.sql.functions.when;

import io.mssqlcdc.client.CaptureInstance;
import io.mssqlcdc.client.CdcClient;
import io.mssqlcdc.client.ChangeCursor;
import io.mssqlcdc.client.ChangeQuery;
import io.mssqlcdc.connector.CdcColumns;
import io.mssqlcdc.lsn.Lsn;
import io.mssqlcdc.options.CdcReaderOptions;
import io.mssqlcdc.sink.tables.DeltaTables;
import io.mssqlcdc.sink.tables.TableRef;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * The keys in flight for reconcile (reference-behaviour §17 steps 6 and 8, §33 O5): bronze's change
 * rows after a lower bound, and the change table's rows beyond what bronze holds (the stream has
 * not written them yet), read from SQL Server on the key columns only. A bucket or key among them
 * is IN_FLIGHT, not a mismatch.
 */
final class InFlightKeys {
  private final SparkSession spark;
  private final TableRef bronzeRef;
  private final StructType bronzeSchema;
  private final CdcReaderOptions reader;
  private final List<String> keys;
  private final List<DataType> keyTypes;

  InFlightKeys(SparkSession spark, TableRef bronzeRef, StructType bronzeSchema, CdcReaderOptions reader,
      List<String> keys, List<DataType> keyTypes) {
    this.spark = spark;
    this.bronzeRef = bronzeRef;
    this.bronzeSchema = bronzeSchema;
    this.reader = reader;
    this.keys = keys;
    this.keyTypes = keyTypes;
  }

  Dataset<Row> pinnedBronze() {
    return DeltaTables.readVersion(spark, bronzeRef, DeltaTables.version(spark, bronzeRef));
  }

  /** Bronze's change rows (op != 0) after {@code lower}, any capture instance. */
  Dataset<Row> changedInBronze(Dataset<Row> bronze, Lsn lower) {
    return bronze.where(c(find(bronzeSchema, CdcColumns.OPERATION).name()).notEqual(0)
        .and(c(find(bronzeSchema, CdcColumns.START_LSN).name()).gt(lit(lower.hex()))));
  }

  /**
   * How far bronze holds the change table (§33 O5): the greatest, over rows after {@code lower}, of
   * a chunk row's {@code _snapshot} and a change row's {@code _start_lsn}; at least {@code lower}.
   */
  Lsn bronzePosition(Dataset<Row> bronze, Lsn lower) {
    Column lsn = c(find(bronzeSchema, CdcColumns.START_LSN).name());
    Column op = c(find(bronzeSchema, CdcColumns.OPERATION).name());
    StructField chunk = find(bronzeSchema, CdcColumns.CHUNK);
    StructField snap = find(bronzeSchema, CdcColumns.SNAPSHOT);
    Column chunkPos = chunk != null && snap != null ? when(c(chunk.name()).isNotNull(), c(snap.name())) : lit(null);
    Row r = bronze.where(lsn.gt(lit(lower.hex()))).agg(max(when(op.notEqual(0), lsn)), max(chunkPos.cast("string")))
        .first();
    Lsn p = lower;
    for (int i = 0; i < 2; i++) {
      if (!r.isNullAt(i)) {
        p = Lsn.max(p, Lsn.parse(r.getString(i)));
      }
    }
    return p;
  }

  /**
   * The keys of the change table's rows in {@code (position, max_lsn]}, read per capture instance of
   * the table (on the key columns only): changes the stream has not written to bronze yet.
   */
  List<List<Object>> unread(CdcClient client, Lsn position) {
    Lsn upper = client.maxLsn().orElse(Lsn.ZERO);
    List<List<Object>> out = new ArrayList<>();
    if (upper.compareTo(position) <= 0) {
      return out;
    }
    Lsn from = client.incrementLsn(position);
    for (CaptureInstance ci : client.captureInstances(reader.captureInstance())) {
      Lsn start = Lsn.max(from, client.minLsn(ci.name()));
      if (start.compareTo(upper) > 0) {
        continue;
      }
      Set<String> capturedHere = new HashSet<>();
      client.capturedColumns(ci.name()).forEach(cc -> capturedHere.add(cc.name().toLowerCase(Locale.ROOT)));
      if (!keys.stream().allMatch(k -> capturedHere.contains(k.toLowerCase(Locale.ROOT)))) {
        continue;
      }
      // Keys only: no commit time per row (no mapping join), and __$command_id in the ORDER BY, so the
      // read follows the change table's clustered index instead of sorting a lagging stream's range.
      try (ChangeCursor cur = client.changes(new ChangeQuery(ci.name(), start, upper, keys,
          reader.includeCommandId(), reader.fetchSize(), false))) {
        while (cur.next()) {
          List<Object> k = new ArrayList<>();
          for (int i = 0; i < keys.size(); i++) {
            k.add(cur.value(i));
          }
          out.add(k);
        }
      }
    }
    return out;
  }

  /** The keys in flight after {@code lower}: bronze's changes and the change table's unread rows, as columns m0.., m_flag. */
  Dataset<Row> movedKeys(CdcClient client, Dataset<Row> bronze, Lsn lower) {
    List<Column> fromBronze = new ArrayList<>();
    for (int x = 0; x < keys.size(); x++) {
      fromBronze.add(c(find(bronzeSchema, keys.get(x)).name()).cast(keyTypes.get(x)).as("m" + x));
    }
    Dataset<Row> b = changedInBronze(bronze, lower).select(fromBronze.toArray(Column[]::new));
    List<List<Object>> unread = unread(client, bronzePosition(bronze, lower));
    if (!unread.isEmpty()) {
      StructType text = new StructType();
      for (int x = 0; x < keys.size(); x++) {
        text = text.add("u" + x, DataTypes.StringType);
      }
      List<Row> rows = new ArrayList<>();
      for (List<Object> k : unread) {
        Object[] v = new Object[k.size()];
        for (int x = 0; x < v.length; x++) {
          Object o = k.get(x);
          v[x] = o == null ? null : o instanceof byte[] bytes ? HexFormat.of().formatHex(bytes) : o.toString();
        }
        rows.add(RowFactory.create(v));
      }
      List<Column> typed = new ArrayList<>();
      for (int x = 0; x < keys.size(); x++) {
        DataType t = keyTypes.get(x);
        Column u = col("u" + x);
        typed.add((t.equals(DataTypes.BinaryType) ? unhex(u) : u.cast(t)).as("m" + x));
      }
      b = b.unionByName(spark.createDataFrame(rows, text).select(typed.toArray(Column[]::new)));
    }
    return b.distinct().withColumn("m_flag", lit(true));
  }
}
