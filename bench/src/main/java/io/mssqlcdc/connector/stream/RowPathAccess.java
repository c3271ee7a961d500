package io.mssqlcdc.connector.stream;

import io.mssqlcdc.client.ChangeCursor;
import io.mssqlcdc.connector.SchemaInference;
import java.util.List;
import java.util.function.Function;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.StructType;

/**
 * The benchmark runner's window on the stream's package-private row building
 * ({@link ChangeRowConverter}: what a partition reader does per change row), so the per-row
 * case times the connector's own code, not a copy. Lives in the bench module only.
 */
public final class RowPathAccess {
  private RowPathAccess() {}

  /** A converter of cursor rows to rows of {@code captured} plus the metadata columns (with command id). */
  public static Function<ChangeCursor, InternalRow> converter(StructType captured, String captureInstance) {
    ChangeRowConverter c = new ChangeRowConverter(SchemaInference.withMetadata(captured, true), captureInstance);
    return c::convert;
  }

  /** The schema the converter builds: metadata columns, then {@code captured}. */
  public static StructType schema(StructType captured) {
    return SchemaInference.withMetadata(captured, true);
  }

  /** The captured columns the converter requests, in order. */
  public static List<String> columns(StructType captured) {
    return List.of(captured.fieldNames());
  }
}
