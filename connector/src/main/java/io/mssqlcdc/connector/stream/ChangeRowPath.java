package io.mssqlcdc.connector.stream;

import io.mssqlcdc.client.ChangeCursor;
import io.mssqlcdc.connector.SchemaInference;
import java.util.List;
import java.util.function.Function;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.StructType;

/**
 * The stream's per-row path as a public seam: what a partition reader does with each change row
 * ({@link ChangeRowConverter}, package-private), for the bench's per-row case, which times the
 * connector's own code rather than a copy, without reaching into this package from another
 * module. Not a supported API: it may change with the reader.
 */
public final class ChangeRowPath {
  private ChangeRowPath() {}

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
