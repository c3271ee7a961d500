package io.mssqlcdc.connector.snapshot;

import io.mssqlcdc.client.CdcClient;
import io.mssqlcdc.client.CdcClients;
import io.mssqlcdc.connector.CdcColumns;
import io.mssqlcdc.connector.SchemaInference;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * The snapshot's schema (reference-behaviour §4): the stream's six metadata columns (five
 * without {@code _command_id}), the captured columns, and {@code _chunk INT} last when
 * {@code snapshotChunks} is set.
 */
public final class SnapshotSchema {
  private SnapshotSchema() {}

  /**
   * Parses the options (failing on bad ones), checks {@code snapshotChunks} against the table's key,
   * and infers the schema, on the driver.
   */
  public static StructType infer(Map<String, String> options) {
    SnapshotOptions parsed = SnapshotOptions.parse(options);
    try (CdcClient client = CdcClients.open(parsed.reader())) {
      StructType captured = SchemaInference.capturedColumns(parsed.reader(), client);
      if (parsed.chunks().isPresent()) {
        new SnapshotPlanner(client).checkChunks(parsed.reader().captureInstance(), parsed.keys(), parsed.chunks().get());
      }
      return of(captured, parsed.reader().includeCommandId(), parsed.chunks().isPresent());
    }
  }

  static StructType of(StructType captured, boolean includeCommandId, boolean chunked) {
    StructType full = SchemaInference.withMetadata(captured, includeCommandId);
    if (!chunked) {
      return full;
    }
    List<StructField> fields = new ArrayList<>(Arrays.asList(full.fields()));
    fields.add(new StructField(CdcColumns.CHUNK, DataTypes.IntegerType, true, Metadata.empty())
        .withComment("snapshotChunks chunk number of the row's key range"));
    return new StructType(fields.toArray(new StructField[0]));
  }

  /** The captured columns of a snapshot {@code schema}: without the metadata columns and {@code _chunk}. */
  static List<String> capturedNames(StructType schema, boolean includeCommandId, boolean chunked) {
    int first = CdcColumns.metadataFields(includeCommandId).size();
    int end = schema.fields().length - (chunked ? 1 : 0);
    List<String> names = new ArrayList<>();
    for (int i = first; i < end; i++) {
      names.add(schema.fields()[i].name());
    }
    return names;
  }
}
