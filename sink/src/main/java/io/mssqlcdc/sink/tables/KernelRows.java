package io.mssqlcdc.sink.tables;

import io.delta.kernel.Scan;
import io.delta.kernel.Snapshot;
import io.delta.kernel.TableManager;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.defaults.engine.DefaultEngine;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.engine.FileReadResult;
import io.delta.kernel.internal.InternalScanFileUtils;
import io.delta.kernel.internal.data.ScanStateRow;
import io.delta.kernel.types.DataType;
import io.delta.kernel.types.IntegerType;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructField;
import io.delta.kernel.types.StructType;
import io.delta.kernel.types.TimestampNTZType;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.FileStatus;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.spark.sql.SparkSession;

/** {@link DriverRead}'s Delta Kernel scan: the only class that touches Kernel, loaded inside its caller's try. */
final class KernelRows {
  private KernelRows() {}

  /** {@link DriverRead#rowsWhere}; throws what Kernel throws. */
  static Optional<List<Map<String, Object>>> rowsWhere(SparkSession spark, TableRef ref, String keyColumn,
      Set<String> keys, List<String> columns) throws Exception {
    Optional<LogVersion.Log> log = LogVersion.log(spark, ref);
    if (log.isEmpty()) {
      return Optional.empty();
    }
    String path = log.get().log().dataPath().toString();
    Engine engine = DefaultEngine.create(spark.sessionState().newHadoopConf());
    Snapshot snapshot = TableManager.loadSnapshot(path).build(engine);
    StructType schema = snapshot.getSchema();
    List<String> wanted = new ArrayList<>(columns);
    if (!wanted.contains(keyColumn)) {
      wanted.add(keyColumn);
    }
    List<StructField> read = new ArrayList<>();
    for (String c : wanted) {
      StructField f = schema.get(c);
      if (f == null) {
        if (c.equals(keyColumn)) {
          return Optional.empty();
        }
        continue;
      }
      if (!readable(f.getDataType())) {
        return Optional.empty();
      }
      read.add(f);
    }
    StructType readSchema = new StructType(read);
    Scan scan = snapshot.getScanBuilder().withReadSchema(readSchema).build();
    io.delta.kernel.data.Row state = scan.getScanState(engine);
    StructType physical = ScanStateRow.getPhysicalDataReadSchema(state);
    List<Map<String, Object>> out = new ArrayList<>();
    try (CloseableIterator<FilteredColumnarBatch> files = scan.getScanFiles(engine)) {
      while (files.hasNext()) {
        try (CloseableIterator<io.delta.kernel.data.Row> fileRows = files.next().getRows()) {
          while (fileRows.hasNext()) {
            io.delta.kernel.data.Row file = fileRows.next();
            FileStatus status = InternalScanFileUtils.getAddFileStatus(file);
            CloseableIterator<ColumnarBatch> data = engine.getParquetHandler()
                .readParquetFiles(single(status), physical, Optional.empty()).map(FileReadResult::getData);
            try (CloseableIterator<FilteredColumnarBatch> logical =
                Scan.transformPhysicalData(engine, state, file, data)) {
              while (logical.hasNext()) {
                collect(logical.next(), readSchema, keyColumn, keys, out);
              }
            }
          }
        }
      }
    }
    return Optional.of(out);
  }

  /** {@link DriverRead#hasFiles}; throws what Kernel throws. */
  static Optional<Boolean> hasFiles(SparkSession spark, TableRef ref, long version) throws Exception {
    Optional<LogVersion.Log> log = LogVersion.log(spark, ref);
    if (log.isEmpty()) {
      return Optional.empty();
    }
    Engine engine = DefaultEngine.create(spark.sessionState().newHadoopConf());
    Snapshot snapshot = TableManager.loadSnapshot(log.get().log().dataPath().toString()).atVersion(version)
        .build(engine);
    try (CloseableIterator<FilteredColumnarBatch> files = snapshot.getScanBuilder().build().getScanFiles(engine)) {
      while (files.hasNext()) {
        try (CloseableIterator<io.delta.kernel.data.Row> fileRows = files.next().getRows()) {
          if (fileRows.hasNext()) {
            return Optional.of(true);
          }
        }
      }
    }
    return Optional.of(false);
  }

  private static void collect(FilteredColumnarBatch batch, StructType schema, String keyColumn, Set<String> keys,
      List<Map<String, Object>> out) throws java.io.IOException {
    int key = schema.indexOf(keyColumn);
    try (CloseableIterator<io.delta.kernel.data.Row> rows = batch.getRows()) {
      while (rows.hasNext()) {
        io.delta.kernel.data.Row r = rows.next();
        if (r.isNullAt(key) || !keys.contains(r.getString(key))) {
          continue;
        }
        Map<String, Object> m = new HashMap<>();
        for (int i = 0; i < schema.length(); i++) {
          m.put(schema.at(i).getName(), value(r, i, schema.at(i).getDataType()));
        }
        out.add(m);
      }
    }
  }

  private static boolean readable(DataType t) {
    return t instanceof StringType || t instanceof IntegerType || t instanceof LongType
        || t instanceof TimestampNTZType;
  }

  private static Object value(io.delta.kernel.data.Row r, int i, DataType t) {
    if (r.isNullAt(i)) {
      return null;
    }
    if (t instanceof StringType) {
      return r.getString(i);
    }
    if (t instanceof IntegerType) {
      return r.getInt(i);
    }
    if (t instanceof LongType) {
      return r.getLong(i);
    }
    long micros = r.getLong(i);
    return LocalDateTime.ofEpochSecond(Math.floorDiv(micros, 1_000_000L),
        (int) Math.floorMod(micros, 1_000_000L) * 1000, ZoneOffset.UTC);
  }

  private static CloseableIterator<FileStatus> single(FileStatus status) {
    return new CloseableIterator<>() {
      private boolean done;

      @Override
      public boolean hasNext() {
        return !done;
      }

      @Override
      public FileStatus next() {
        done = true;
        return status;
      }

      @Override
      public void close() {}
    };
  }
}
