package io.mssqlcdc.catalog;

import io.mssqlcdc.connector.CdcSnapshotTableProvider;
import io.mssqlcdc.connector.CdcTableProvider;
import io.mssqlcdc.errors.CdcConfigException;
import java.util.Arrays;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.streaming.MicroBatchStream;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * A read of a catalog table: the connector's snapshot scan when Spark reads it as a batch, its
 * stream scan when Spark streams it. Both are the connector's own, built from its providers with
 * the merged options; this class only routes. Options that only the snapshot reads, given to a
 * stream, fail when the stream is created, as they do on {@code format("mssql_cdc")}.
 */
final class CatalogScan implements Scan {
  private static final CaseInsensitiveStringMap NONE = CaseInsensitiveStringMap.empty();

  private final String table;
  private final StructType schema;
  private final Scan snapshot;
  private final Scan stream;
  private final CdcConfigException streamRefused;

  CatalogScan(String table, StructType schema, Map<String, String> snapshotOptions, Map<String, String> streamOptions) {
    this.table = table;
    this.schema = schema;
    this.snapshot = ((SupportsRead) new CdcSnapshotTableProvider().getTable(schema, new Transform[0], snapshotOptions))
        .newScanBuilder(NONE).build();
    Scan s = null;
    CdcConfigException refused = null;
    try {
      s = ((SupportsRead) new CdcTableProvider().getTable(schema, new Transform[0], streamOptions))
          .newScanBuilder(NONE).build();
    } catch (CdcConfigException e) {
      refused = e; // a batch read may carry snapshot-only options; a stream of them fails in toMicroBatchStream
    }
    this.stream = s;
    this.streamRefused = refused;
  }

  @Override
  public StructType readSchema() {
    return schema;
  }

  @Override
  public String description() {
    return table + " (" + snapshot.description() + ")";
  }

  @Override
  public Batch toBatch() {
    return snapshot.toBatch();
  }

  @Override
  public MicroBatchStream toMicroBatchStream(String checkpointLocation) {
    if (streamRefused != null) {
      throw streamRefused;
    }
    return stream.toMicroBatchStream(checkpointLocation);
  }

  @Override
  public CustomMetric[] supportedCustomMetrics() {
    CustomMetric[] s = stream == null ? new CustomMetric[0] : stream.supportedCustomMetrics();
    return Stream.concat(Arrays.stream(snapshot.supportedCustomMetrics()), Arrays.stream(s))
        .filter(distinctByName())
        .toArray(CustomMetric[]::new);
  }

  private static java.util.function.Predicate<CustomMetric> distinctByName() {
    java.util.Set<String> seen = new java.util.HashSet<>();
    return m -> seen.add(m.name());
  }
}
