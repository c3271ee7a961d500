package io.mssqlcdc.connector.stream;

import io.mssqlcdc.errors.Secrets;
import io.mssqlcdc.options.CdcReaderOptions;
import java.time.Clock;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.streaming.MicroBatchStream;
import org.apache.spark.sql.types.StructType;

/** The streaming scan: builds the {@link CdcMicroBatchStream} for a checkpoint. */
final class CdcScan implements Scan {
  private final CdcReaderOptions options;
  private final StructType schema;
  private final StructType captured;

  CdcScan(CdcReaderOptions options, StructType schema, StructType captured) {
    this.options = options;
    this.schema = schema;
    this.captured = captured;
  }

  @Override
  public StructType readSchema() {
    return schema;
  }

  @Override
  public String description() {
    return Secrets.redact("mssql_cdc[captureInstance=" + options.captureInstance() + ", backend=" + options.backend()
        + "]");
  }

  @Override
  public MicroBatchStream toMicroBatchStream(String checkpointLocation) {
    SparkSession spark = SparkSession.active();
    return new CdcMicroBatchStream(options, schema, captured, checkpointLocation,
        spark.sessionState().newHadoopConf(), spark.sparkContext(), Clock.systemUTC());
  }

  @Override
  public CustomMetric[] supportedCustomMetrics() {
    return CdcMetrics.supported();
  }
}
