package io.mssqlcdc.connector.stream;

import io.mssqlcdc.options.CdcReaderOptions;
import org.apache.spark.sql.connector.read.InputPartition;

/**
 * One range to read on an executor: the range, the options (with the driver's
 * {@code sourceTimeZone}, so executors convert commit times exactly as the driver did) and the
 * batch's accumulators. Stateless: a replay reads the same rows.
 */
record CdcInputPartition(LsnRange range, CdcReaderOptions options, BatchAccumulators acc) implements InputPartition {}
