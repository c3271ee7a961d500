package io.mssqlcdc.connector.snapshot;

import io.mssqlcdc.client.TableRef;
import java.util.List;

/**
 * What the driver decided for one snapshot read: the stamp (taken first), the table, the columns
 * present in it, the key the ranges apply to (current column names; empty for a whole-table
 * read) and the ranges, one partition each.
 */
record SnapshotPlan(
    SnapshotStamp stamp, TableRef table, PresentColumns columns, List<String> keys, List<PlannedRange> ranges) {

  SnapshotPlan {
    keys = List.copyOf(keys);
    ranges = List.copyOf(ranges);
  }
}
