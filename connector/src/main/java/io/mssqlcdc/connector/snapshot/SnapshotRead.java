package io.mssqlcdc.connector.snapshot;

import io.mssqlcdc.options.CdcReaderOptions;
import java.io.Serializable;
import org.apache.spark.sql.types.StructType;

/**
 * What every partition of one read shares: the options to open a client with, the output schema,
 * the configured capture instance name ({@code _capture_instance}), the stamp, and the columns
 * present in the table.
 */
record SnapshotRead(
    CdcReaderOptions options, StructType schema, String captureInstance, SnapshotStamp stamp,
    PresentColumns columns, boolean chunked) implements Serializable {}
