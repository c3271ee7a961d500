package io.mssqlcdc.silver;

import io.mssqlcdc.connector.CdcColumns;
import java.util.ArrayList;
import java.util.List;

/**
 * Which bronze row of a key is its latest image (reference-behaviour §16 step 12): the greatest
 * {@code (_start_lsn, _command_id, _seqval, _operation)}, rows without {@code _command_id} or
 * {@code _seqval} (snapshot rows, synthetic deletes) after those with. The change table's own order:
 * the commit first, then the statement inside the transaction, the change inside the statement, and
 * an update's after image (4) over its before image (3). So a 3 is a key's latest row only when the
 * update moved the row to another key.
 *
 * <p>A bronze written with {@code includeCommandId=false} has no {@code _command_id}: the order is
 * then {@code (_start_lsn, _seqval, _operation)}, as the reader orders rows then. {@code _command_id}
 * is numbered per capture instance, but all rows of one commit come from one instance, so the order
 * holds across a switch.
 */
final class ImageOrder {
  /** One sort key: a column, descending, with NULLs after the values when {@code nullsLast}. */
  record SortKey(String column, boolean nullsLast) {}

  private ImageOrder() {}

  /** The sort keys, newest image first. */
  static List<SortKey> newestFirst(boolean hasCommandId) {
    List<SortKey> keys = new ArrayList<>();
    keys.add(new SortKey(CdcColumns.START_LSN, false));
    if (hasCommandId) {
      keys.add(new SortKey(CdcColumns.COMMAND_ID, true));
    }
    keys.add(new SortKey(CdcColumns.SEQVAL, true));
    keys.add(new SortKey(CdcColumns.OPERATION, false));
    return List.copyOf(keys);
  }
}
