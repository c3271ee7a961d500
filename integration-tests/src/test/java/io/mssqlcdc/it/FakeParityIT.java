package io.mssqlcdc.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.mssqlcdc.client.contract.ContractHistory;
import io.mssqlcdc.client.contract.ContractHistory.RowOp;
import io.mssqlcdc.fake.FakeContractHistory;
import io.mssqlcdc.lsn.Lsn;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * One scripted history run on SQL Server and on the fake ({@code io.mssqlcdc.fake}), compared
 * after normalising what legitimately differs (LSN values): operations, their order, values,
 * how rows group into commits, and which rows share a {@code __$seqval} (an update's 3 and 4).
 */
class FakeParityIT {

  /** The fake's history: a fresh fake database in a temporary directory. */
  static final Supplier<ContractHistory> FAKE_HISTORY = FakeContractHistory::new;

  private static final String TABLE = "parity";

  /** What both must read back for {@link #run}: SQL Server's behaviour, pinned. */
  static final List<String> EXPECTED = List.of(
      "c0 op2 s0 [1, a, 1.00]", "c0 op2 s1 [2, b, 2.00]",
      "c1 op3 s2 [1, a, 1.00]", "c1 op4 s2 [1, a2, 1.50]", "c1 op1 s3 [2, b, 2.00]",
      "c2 op2 s4 [3, c, null]");

  /** Runs here, without a server: the fake reads the script back as SQL Server does. */
  @Test
  void fakeMatchesTheScript() {
    try (ContractHistory fake = FAKE_HISTORY.get()) {
      assertThat(run(fake, ItTables.unique(TABLE))).isEqualTo(EXPECTED);
    }
  }

  /** Needs a server (skipped otherwise): SQL Server reads the script back as pinned. */
  @Test
  void sqlServerMatchesTheScript() {
    try (ContractHistory server = new SqlServerContractHistory(ItServer.get())) {
      assertThat(run(server, ItTables.unique(TABLE))).isEqualTo(EXPECTED);
    }
  }

  /** The script, read back and normalised: commit index, operation, seqval index, values. */
  private static List<String> run(ContractHistory h, String table) {
    String ci = h.createTrackedTable(table);
    List<Lsn> commits = new ArrayList<>();
    commits.add(h.commit(table, List.of(RowOp.insert(1, "a", "1.00"), RowOp.insert(2, "b", "2.00"))));
    commits.add(h.commit(table, List.of(RowOp.update(1, "a2", "1.50"), RowOp.delete(2))));
    commits.add(h.commit(table, List.of(RowOp.insert(3, "c", null))));
    List<ItTables.Change> rows = ItTables.readAll(h.client(), ci, commits.get(0), commits.get(2),
        List.of("id", "name", "amount"), true);
    List<Lsn> seqvals = new ArrayList<>();
    List<String> out = new ArrayList<>();
    for (ItTables.Change r : rows) {
      if (!seqvals.contains(r.seqval())) {
        seqvals.add(r.seqval());
      }
      out.add("c" + commits.indexOf(r.startLsn()) + " op" + r.operation() + " s" + seqvals.indexOf(r.seqval()) + " "
          + r.values());
    }
    return out;
  }
}
