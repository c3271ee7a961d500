package io.mssqlcdc.connector.snapshot;

import io.mssqlcdc.client.KeyRange;
import java.io.Serializable;

/**
 * One entry of {@code snapshotChunks}: chunk number {@code chunk} covers the key range
 * {@code range} ({@code lo} inclusive, {@code hi} exclusive, open ends {@code null}).
 */
record SnapshotChunk(int chunk, KeyRange range) implements Serializable {}
