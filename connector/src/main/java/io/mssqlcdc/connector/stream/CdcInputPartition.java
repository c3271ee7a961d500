package io.mssqlcdc.connector.stream;

import io.mssqlcdc.lsn.Lsn;
import io.mssqlcdc.options.CdcReaderOptions;
import org.apache.spark.sql.connector.read.InputPartition;

/**
 * One range to read on an executor: the range, the options (with the driver's
 * {@code sourceTimeZone}, so executors convert commit times exactly as the driver did) and the
 * end LSN of its batch (the key of the batch's accumulators, which travel in the reader factory:
 * accumulators register with a task only when deserialized inside it, and input partitions are
 * deserialized before). Stateless: a replay reads the same rows.
 *
 * @param last whether this is the batch's last range (the one ending at its end offset), which
 *     alone measures the position figures after its read ({@link PartitionFigures})
 */
record CdcInputPartition(LsnRange range, CdcReaderOptions options, Lsn batchEnd, boolean last)
    implements InputPartition {}
