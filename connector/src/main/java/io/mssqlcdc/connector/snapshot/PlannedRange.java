package io.mssqlcdc.connector.snapshot;

import io.mssqlcdc.client.KeyRange;
import java.io.Serializable;

/**
 * One partition's share of the table: a key range, and the {@code snapshotChunks} number it
 * reads ({@code null} for whole-table reads).
 */
record PlannedRange(KeyRange range, Integer chunk) implements Serializable {}
