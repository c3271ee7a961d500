package io.mssqlcdc.client;

import io.mssqlcdc.lsn.Lsn;
import java.io.Serializable;
import java.util.List;

/**
 * What {@link CdcClient#changes} reads: the change rows of one capture instance whose
 * {@code __$start_lsn} lies in the closed interval {@code [from, to]}.
 *
 * @param captureInstance instance whose change table is read
 * @param from first LSN, inclusive
 * @param to last LSN, inclusive
 * @param columns captured columns to return, in this order, matched to the captured names as
 *     {@link ColumnNames} says (exact, else ignoring case); a column the instance does not
 *     capture reads as NULL
 * @param includeCommandId whether to read {@code __$command_id} (servers whose change tables
 *     lack it need {@code false}; then {@link ChangeCursor#commandId()} is 0)
 * @param fetchSize rows per round trip to the server (a hint; memory never depends on the
 *     range size)
 * @param commitTimes whether to read each row's commit time; {@code false} for a reader that
 *     only collects keys (reconcile's unread changes): no join with {@code cdc.lsn_time_mapping},
 *     no conversion per row, {@link ChangeCursor#commitTime()} null
 */
public record ChangeQuery(
    String captureInstance, Lsn from, Lsn to, List<String> columns, boolean includeCommandId, int fetchSize,
    boolean commitTimes) implements Serializable {

  public ChangeQuery {
    columns = List.copyOf(columns);
  }

  /** A query that reads commit times. */
  public ChangeQuery(String captureInstance, Lsn from, Lsn to, List<String> columns, boolean includeCommandId,
      int fetchSize) {
    this(captureInstance, from, to, columns, includeCommandId, fetchSize, true);
  }
}
