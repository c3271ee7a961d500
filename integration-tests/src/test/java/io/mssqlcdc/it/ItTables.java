package io.mssqlcdc.it;

import io.mssqlcdc.client.ChangeCursor;
import io.mssqlcdc.client.ChangeQuery;
import io.mssqlcdc.client.CdcClient;
import io.mssqlcdc.lsn.Lsn;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/** Small helpers shared by the integration tests. */
final class ItTables {
  private static final AtomicInteger COUNTER = new AtomicInteger();

  private ItTables() {}

  /** A table name unique in this run (tests share one database). */
  static String unique(String prefix) {
    return prefix + "_" + (System.currentTimeMillis() % 1_000_000) + "_" + COUNTER.incrementAndGet();
  }

  /** One change row, as the client returned it. */
  record Change(Lsn startLsn, Lsn seqval, int operation, int commandId, List<Object> values) {}

  static List<Change> readAll(CdcClient client, String ci, Lsn from, Lsn to, List<String> columns, boolean commandId) {
    List<Change> out = new ArrayList<>();
    try (ChangeCursor c = client.changes(new ChangeQuery(ci, from, to, columns, commandId, 100))) {
      while (c.next()) {
        List<Object> v = new ArrayList<>();
        for (int i = 0; i < columns.size(); i++) {
          v.add(c.value(i));
        }
        out.add(new Change(c.startLsn(), c.seqval(), c.operation(), c.commandId(), v));
      }
    }
    return out;
  }
}
