package io.mssqlcdc.connector.snapshot;

import io.mssqlcdc.client.RowCursor;
import io.mssqlcdc.connector.CapturedValues;
import io.mssqlcdc.connector.ConstantVectors;
import io.mssqlcdc.connector.VectorRow;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.execution.vectorized.OnHeapColumnVector;
import org.apache.spark.sql.execution.vectorized.WritableColumnVector;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * Builds the snapshot's rows as column batches: the same values as {@link SnapshotRows} (the same
 * {@link CapturedValues} writers, into on-heap vectors through a {@link VectorRow}); the metadata
 * columns, {@code _chunk} and the captured columns the table no longer has are constant vectors
 * taken from the row path's own row, so they cost nothing per row. One batch, reused: valid until
 * the next {@link #reset}.
 */
final class SnapshotColumns implements AutoCloseable {
  private final SnapshotRows rows;
  private final WritableColumnVector[] writable;
  private final ColumnVector[] vectors;
  private final VectorRow target;
  private final ColumnarBatch batch;

  SnapshotColumns(SnapshotRead read, Integer chunk, int capacity) {
    this.rows = new SnapshotRows(read, chunk);
    StructField[] fields = read.schema().fields();
    CapturedValues captured = rows.captured();
    InternalRow constants = rows.constants();
    this.writable = new WritableColumnVector[fields.length];
    this.vectors = new ColumnVector[fields.length];
    for (int i = 0; i < fields.length; i++) {
      int c = i - captured.first();
      if (c >= 0 && c < captured.count() && captured.reads(c)) {
        writable[i] = new OnHeapColumnVector(capacity, fields[i].dataType());
        vectors[i] = writable[i];
      } else {
        vectors[i] = ConstantVectors.of(constants, i, fields[i].dataType(), capacity);
      }
    }
    this.target = new VectorRow(writable);
    this.batch = new ColumnarBatch(vectors);
  }

  /** Whether every column of {@code schema} can be built this way (else the row path reads it). */
  static boolean supports(StructType schema) {
    for (StructField f : schema.fields()) {
      if (!VectorRow.supports(f.dataType())) {
        return false;
      }
    }
    return true;
  }

  /** Empties the batch for a new one. */
  void reset() {
    for (WritableColumnVector v : writable) {
      if (v != null) {
        v.reset();
      }
    }
  }

  /** Writes the cursor's current row at {@code rowId} of the batch. */
  void fill(int rowId, RowCursor cursor) {
    target.at(rowId);
    rows.fill(target, cursor);
  }

  /** The batch, of its first {@code numRows} rows. */
  ColumnarBatch batch(int numRows) {
    batch.setNumRows(numRows);
    return batch;
  }

  /** Approximate bytes of the captured values built so far. */
  long bytes() {
    return rows.bytes();
  }

  @Override
  public void close() {
    batch.close();
  }
}
