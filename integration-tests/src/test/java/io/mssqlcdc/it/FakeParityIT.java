package io.mssqlcdc.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.mssqlcdc.client.contract.ContractHistory;
import io.mssqlcdc.client.contract.ContractHistory.RowOp;
import io.mssqlcdc.lsn.Lsn;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * One scripted history run on SQL Server and on the fake ({@code io.mssqlcdc.fake}), compared
 * after normalising what legitimately differs (LSN values): operations, their order, values,
 * how rows group into commits, and which rows share a {@code __$seqval} (an update's 3 and 4).
 */
class FakeParityIT {

  /**
   * TODO(fake-parity): return the fake's {@link ContractHistory} once {@code io.mssqlcdc.fake}
   * publishes one (its writer API is being written in parallel); until then the test is skipped
   * after checking the SQL Server side alone.
   */
  static final Supplier<ContractHistory> FAKE_HISTORY = () -> null;

  private static final String TABLE = "parity";

  @Test
  void fakeAndSqlServerAgree() {
    String table = ItTables.unique(TABLE);
    List<String> onServer;
    try (ContractHistory server = new SqlServerContractHistory(ItServer.get())) {
      onServer = run(server, table);
    }
    assertThat(onServer).containsExactly(
        "c0 op2 s0 [1, a, 1.00]", "c0 op2 s1 [2, b, 2.00]",
        "c1 op3 s2 [1, a, 1.00]", "c1 op4 s2 [1, a2, 1.50]", "c1 op1 s3 [2, b, 2.00]",
        "c2 op2 s4 [3, c, null]");
    ContractHistory fake = FAKE_HISTORY.get();
    Assumptions.assumeTrue(fake != null, "TODO(fake-parity): the fake's ContractHistory is not wired in yet");
    try (fake) {
      assertThat(run(fake, table)).isEqualTo(onServer);
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
