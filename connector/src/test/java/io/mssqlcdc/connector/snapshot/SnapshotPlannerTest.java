package io.mssqlcdc.connector.snapshot;

import static io.mssqlcdc.fake.FakeRows.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.client.CdcClient;
import io.mssqlcdc.client.KeyRange;
import io.mssqlcdc.connector.FakeProbe;
import io.mssqlcdc.errors.CdcConfigException;
import io.mssqlcdc.fake.FakeCdcDatabase;
import io.mssqlcdc.lsn.Lsn;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The snapshot planner over the fake: {@code dbo.t (ID int PRIMARY KEY, day date, at time(7),
 * extra int)}, captured by {@code dbo_t} without {@code extra}; the calls it makes are recorded.
 */
@Tag("spark")
class SnapshotPlannerTest {
  @TempDir Path tmp;
  FakeCdcDatabase db;
  FakeProbe probe;
  CdcClient client;

  @BeforeEach
  void setUp() {
    db = FakeCdcDatabase.create(tmp.resolve("db"));
    db.createTable("dbo", "t", "ID int", "day date", "at time(7)", "extra int").key("ID");
    db.enableCdc("dbo", "t", "dbo_t", "ID", "day", "at");
    probe = FakeProbe.detached();
    client = probe.wrap(db.client());
  }

  /** Rows with ids {@code ids}; row i has day 2025-12-30 + i and at 00:00 + i seconds. */
  private Lsn insert(int... ids) {
    return db.commit(tx -> {
      for (int i = 0; i < ids.length; i++) {
        tx.insert("t", row("ID", ids[i], "day", LocalDate.of(2025, 12, 30).plusDays(i),
            "at", java.time.LocalTime.ofSecondOfDay(i).toString(), "extra", i));
      }
    });
  }

  private static int[] range(int from, int to) {
    return java.util.stream.IntStream.rangeClosed(from, to).toArray();
  }

  private SnapshotPlan plan(int n, String keys, String chunks) {
    return plan("DBO_T", n, keys, chunks);
  }

  private SnapshotPlan plan(String ci, int n, String keys, String chunks) {
    return new SnapshotPlanner(client).plan(new SnapshotPlanner.Request(ci, List.of("id", "day"),
        Optional.empty(), Optional.ofNullable(keys).map(SnapshotKeys::parse),
        Optional.ofNullable(chunks).map(SnapshotChunks::parse), n));
  }

  @Test
  void theStampIsTakenBeforeAnythingReadsTheTable() {
    Lsn last = insert(range(1, 100));
    SnapshotPlan p = plan(4, null, null);
    assertThat(p.stamp().lsn()).isEqualTo(last);
    assertThat(probe.calls()).containsSubsequence("maxLsn", "sourceTable", "keyMinMax");
    assertThat(probe.calls().indexOf("maxLsn")).isLessThan(probe.calls().indexOf("keyMinMax"));
  }

  @Test
  void aSingleIntegerKeyIsCutUniformlyUnderItsCurrentName() {
    insert(range(1, 100));
    SnapshotPlan p = plan(4, null, null);
    assertThat(p.keys()).containsExactly("ID");
    assertThat(p.ranges()).extracting(PlannedRange::range).containsExactly(
        new KeyRange(null, List.of(26)), new KeyRange(List.of(26), List.of(51)),
        new KeyRange(List.of(51), List.of(76)), new KeyRange(List.of(76), null));
    assertThat(p.columns().read()).containsExactly("ID", "day");
  }

  @Test
  void onePartitionWhenAskedForOneOrTheTableIsEmptyOrHasOneKey() {
    assertThat(plan(4, null, null).ranges()).as("empty table").containsExactly(new PlannedRange(KeyRange.ALL, null));
    insert(7);
    assertThat(plan(4, null, null).ranges()).as("one key").containsExactly(new PlannedRange(KeyRange.ALL, null));
    insert(range(8, 20));
    int before = probe.calls().size();
    assertThat(plan(1, null, null).ranges()).containsExactly(new PlannedRange(KeyRange.ALL, null));
    assertThat(probe.calls().subList(before, probe.calls().size())).as("numPartitions=1 reads no key")
        .noneMatch(c -> c.startsWith("key"));
  }

  @Test
  void otherKeysAreTiledAndUnbindableKeysReadWhole() {
    insert(1, 2, 3, 4); // days 2025-12-30 .. 2026-01-02: NTILE(2) starts its second tile at 2026-01-01
    assertThat(plan(2, "[\"day\"]", null).ranges()).extracting(PlannedRange::range).containsExactly(
        new KeyRange(null, List.of(LocalDate.of(2026, 1, 1))), new KeyRange(List.of(LocalDate.of(2026, 1, 1)), null));
    assertThat(probe.calls()).contains("keyTiles");

    assertThat(plan(2, "[\"at\"]", null).ranges()).as("time(7) has no bindable bound")
        .containsExactly(new PlannedRange(KeyRange.ALL, null));
    assertThat(plan(2, "[\"extra\", \"id\"]", null).ranges()).as("extra is not captured: type unknown")
        .containsExactly(new PlannedRange(KeyRange.ALL, null));
    assertThat(plan(2, "[\"gone\"]", null).ranges()).containsExactly(new PlannedRange(KeyRange.ALL, null));
  }

  @Test
  void chunkBoundsAreTypedAsTheKeyColumns() {
    SnapshotPlan p = plan(8, "[\"day\", \"id\"]", "[[4, [\"2026-01-01\", 3], null]]");
    assertThat(p.keys()).containsExactly("day", "ID");
    assertThat(p.ranges()).containsExactly(new PlannedRange(new KeyRange(List.of(LocalDate.of(2026, 1, 1), 3), null), 4));
    assertThat(plan(8, "[\"extra\"]", "[[0, 1, 2]]").ranges().get(0).range().lo())
        .as("an uncaptured key takes integer bounds as given").containsExactly(1L);
  }

  @Test
  void chunkBoundsThatAreNoValueOfTheKeyFail() {
    assertThatThrownBy(() -> plan(8, null, "[[0, \"x\", null]]"))
        .isInstanceOf(CdcConfigException.class)
        .hasMessageEndingWith("not '[[0, \"x\", null]]': the bound 'x' is no int value of key column ID (give its"
            + " value as the text CAST reads back: ISO 8601 times, 0x hex binary).");
    assertThatThrownBy(() -> plan(8, "[\"extra\"]", "[[0, \"x\", null]]"))
        .hasMessage("MSSQL_CDC-115: snapshotChunks has key bounds, but dbo.t's key [extra] cannot be read in ranges"
            + " (extra is not captured, so its type is unknown and only integer bounds can be used). Read the whole"
            + " table without snapshotChunks, or name a unique key of bindable columns in snapshotKeys.");
  }

  @Test
  void chunksAreCheckedFromMetadataAloneBeforeAnyRead() {
    insert(range(1, 10));
    new SnapshotPlanner(client).checkChunks("dbo_t", Optional.empty(), SnapshotChunks.parse("[[0, 1, 5]]"));
    assertThatThrownBy(() -> new SnapshotPlanner(client).checkChunks("dbo_t", Optional.of(List.of("at")),
        SnapshotChunks.parse("[[0, \"10:00\", null]]")))
        .hasMessageContaining("dbo.t's key [at] cannot be read in ranges (at is time(7), which has no bindable bound)");
    assertThat(probe.calls()).doesNotContain("maxLsn", "readTable").noneMatch(c -> c.startsWith("key"));
  }

  @Test
  void openChunksNeedNoKey() {
    db.createTable("dbo", "heap", "id int", "day date"); // no unique index
    db.enableCdc("dbo", "heap");
    SnapshotPlan p = plan("dbo_heap", 8, null, "[[0, null, null], [1, null, null]]");
    assertThat(p.keys()).isEmpty();
    assertThat(p.ranges()).containsExactly(new PlannedRange(KeyRange.ALL, 0), new PlannedRange(KeyRange.ALL, 1));
  }

  @Test
  void aGoneInstanceFallsBackToTheTablesNewest() {
    db.enableCdc("dbo", "t", "dbo_t_v2", "ID", "day");
    db.disableCdc("dbo_t");
    Lsn last = insert(range(1, 100));
    SnapshotPlan p = plan(1, null, null);
    assertThat(p.columns().read()).containsExactly("ID", "day");
    assertThat(p.stamp().lsn()).isEqualTo(last);
  }
}
