package io.mssqlcdc.client;

import java.io.Serializable;
import java.util.List;

/**
 * What {@link CdcClient#readTable} reads: the current rows of a source table in a key range.
 *
 * @param table the source table
 * @param columns columns to return, in this order; each must exist in the table now (callers
 *     leave out dropped and computed columns and fill them with NULL themselves)
 * @param keys key columns the range applies to (empty: the range must be {@link KeyRange#ALL})
 * @param range key range, {@code [lo, hi)}
 * @param isolation {@code readCommitted} or {@code snapshot}; never uncommitted reads
 * @param lockTimeoutMs {@code SET LOCK_TIMEOUT} for the read, or -1 to wait forever
 * @param fetchSize rows per round trip (a hint)
 */
public record TableQuery(
    TableRef table, List<String> columns, List<String> keys, KeyRange range, Isolation isolation,
    long lockTimeoutMs, int fetchSize) implements Serializable {

  public TableQuery {
    columns = List.copyOf(columns);
    keys = List.copyOf(keys);
  }

  /** Isolation of snapshot reads. There is deliberately no READ UNCOMMITTED (NOLOCK). */
  public enum Isolation {
    READ_COMMITTED("readCommitted"),
    SNAPSHOT("snapshot");

    private final String optionValue;

    Isolation(String optionValue) {
      this.optionValue = optionValue;
    }

    public String optionValue() {
      return optionValue;
    }
  }
}
