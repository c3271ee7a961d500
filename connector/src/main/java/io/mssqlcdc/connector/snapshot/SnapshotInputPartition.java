package io.mssqlcdc.connector.snapshot;

import io.mssqlcdc.client.TableQuery;
import org.apache.spark.sql.connector.read.InputPartition;

/**
 * One partition of a snapshot read: its key range (inside {@code query}) and, for
 * {@code snapshotChunks}, the chunk number.
 */
record SnapshotInputPartition(int index, SnapshotRead read, TableQuery query, Integer chunk)
    implements InputPartition {}
