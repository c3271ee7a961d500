package io.mssqlcdc.catalog;

import io.mssqlcdc.connector.CdcColumns;
import io.mssqlcdc.connector.CdcOffset;
import io.mssqlcdc.connector.CdcTableProvider;
import java.io.IOException;
import java.util.Map;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.JoinedRow;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.streaming.MicroBatchStream;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * A batch read of a {@link CdcChangelog}: the change stream's own micro-batch read of the LSN range
 * (its {@code planInputPartitions(after, upTo)} and partition readers, as a stream batch with those
 * offsets reads it), each row extended with the change-data columns. Nothing is written: the
 * stream's checkpoint is a path its batch read never creates.
 */
final class ChangelogScan implements Scan, Batch {
  private final String table;
  private final StructType streamSchema;
  private final StructType schema;
  private final ChangeRange range;
  private final Map<String, String> streamOptions;
  private transient MicroBatchStream stream;

  ChangelogScan(String table, StructType streamSchema, StructType schema, ChangeRange range,
      Map<String, String> streamOptions) {
    this.table = table;
    this.streamSchema = streamSchema;
    this.schema = schema;
    this.range = range;
    this.streamOptions = streamOptions;
  }

  @Override
  public StructType readSchema() {
    return schema;
  }

  @Override
  public String description() {
    return table + " CHANGES (" + range.after().hex() + ", " + range.upTo().hex() + "]";
  }

  @Override
  public Batch toBatch() {
    return this;
  }

  private MicroBatchStream stream() {
    if (stream == null) {
      // Only initialOffset() touches the checkpoint, and a batch read never calls it: the path is never created.
      String checkpoint = java.nio.file.Path.of(System.getProperty("java.io.tmpdir"),
          "mssql-cdc-changes-unused-" + java.util.UUID.randomUUID()).toString();
      stream = changeStream(streamOptions, checkpoint);
    }
    return stream;
  }

  private MicroBatchStream changeStream(Map<String, String> options, String checkpoint) {
    return ((SupportsRead) new CdcTableProvider().getTable(streamSchema, new Transform[0], options))
        .newScanBuilder(CaseInsensitiveStringMap.empty()).build().toMicroBatchStream(checkpoint);
  }

  /**
   * {@code readStream.changes}: the change stream on {@code checkpointLocation}, a new checkpoint
   * starting after the range's start ({@code startingLsn}); its end, if any, is not applied.
   */
  @Override
  public MicroBatchStream toMicroBatchStream(String checkpointLocation) {
    Map<String, String> o = new java.util.LinkedHashMap<>();
    streamOptions.forEach((k, v) -> {
      if (!k.equalsIgnoreCase("startingLsn")) {
        o.put(k, v);
      }
    });
    o.put("startingLsn", range.after().hex());
    return new ChangelogStream(changeStream(o, checkpointLocation), this::changeRows);
  }

  @Override
  public InputPartition[] planInputPartitions() {
    if (range.isEmpty()) {
      return new InputPartition[0];
    }
    return stream().planInputPartitions(CdcOffset.of(range.after(), null, null),
        CdcOffset.of(range.upTo(), null, null));
  }

  @Override
  public PartitionReaderFactory createReaderFactory() {
    return changeRows(range.isEmpty() ? null : stream().createReaderFactory());
  }

  private PartitionReaderFactory changeRows(PartitionReaderFactory rows) {
    int op = streamSchema.fieldIndex(CdcColumns.OPERATION);
    int lsn = streamSchema.fieldIndex(CdcColumns.START_LSN);
    int seq = streamSchema.fieldIndex(CdcColumns.SEQVAL);
    int ts = streamSchema.fieldIndex(CdcColumns.COMMIT_TS);
    return new ChangeRowsFactory(rows, op, lsn, seq, ts);
  }

  /** The stream's readers, each row joined with its change-data columns. */
  private record ChangeRowsFactory(PartitionReaderFactory rows, int op, int lsn, int seq, int ts)
      implements PartitionReaderFactory {
    @Override
    public PartitionReader<InternalRow> createReader(InputPartition partition) {
      PartitionReader<InternalRow> in = rows.createReader(partition);
      return new PartitionReader<>() {
        private final JoinedRow joined = new JoinedRow();

        @Override
        public boolean next() throws IOException {
          return in.next();
        }

        @Override
        public InternalRow get() {
          InternalRow r = in.get();
          UTF8String version = r.getUTF8String(lsn);
          UTF8String seqval = r.isNullAt(seq) ? UTF8String.EMPTY_UTF8 : r.getUTF8String(seq);
          Object[] extra = {
              UTF8String.fromString(ChangeTypes.of(r.getInt(op))),
              version.copy(),
              r.isNullAt(ts) ? null : r.getLong(ts), // TIMESTAMP_NTZ holding UTC: the same microseconds
              UTF8String.concat(version, seqval)};
          return joined.apply(r, new GenericInternalRow(extra));
        }

        @Override
        public void close() throws IOException {
          in.close();
        }
      };
    }
  }
}
