package io.mssqlcdc.connector.snapshot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.client.CaptureInstance;
import io.mssqlcdc.client.CapturedColumn;
import io.mssqlcdc.client.KeyRange;
import io.mssqlcdc.client.SourceTable;
import io.mssqlcdc.client.TableColumn;
import io.mssqlcdc.client.TableRef;
import io.mssqlcdc.errors.CdcConfigException;
import io.mssqlcdc.lsn.Lsn;
import io.mssqlcdc.types.SqlServerType;
import java.time.LocalDate;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class SnapshotPlannerTest {
  private final StubCdcClient client = new StubCdcClient();
  private final TableRef table = new TableRef("dbo", "t");

  @BeforeEach
  void setUp() {
    client.maxLsn = Optional.of(Lsn.of(0, 50));
    client.instances.add(new CaptureInstance("dbo_t", "dbo", "t", Lsn.of(0, 5), List.of("ID"), null));
    client.captured.put("dbo_t", List.of(
        new CapturedColumn("id", 1, 1, SqlServerType.of("int"), false),
        new CapturedColumn("day", 2, 2, SqlServerType.of("date"), false),
        new CapturedColumn("at", 3, 3, SqlServerType.temporal("time", 7), false)));
    client.source = new SourceTable(table, List.of("ID"));
    client.tableColumns.addAll(List.of(
        new TableColumn("ID", 1, false, null), new TableColumn("day", 2, false, null),
        new TableColumn("at", 3, false, null), new TableColumn("extra", 4, false, null)));
  }

  private SnapshotPlan plan(int n, String keys, String chunks) {
    return new SnapshotPlanner(client).plan(new SnapshotPlanner.Request("DBO_T", List.of("id", "day"),
        Optional.empty(), Optional.ofNullable(keys).map(SnapshotKeys::parse),
        Optional.ofNullable(chunks).map(SnapshotChunks::parse), n));
  }

  @Test
  void theStampIsTakenBeforeAnythingReadsTheTable() {
    client.minMax = Optional.of(List.of(1, 100));
    SnapshotPlan p = plan(4, null, null);
    assertThat(p.stamp().lsn()).isEqualTo(Lsn.of(0, 50));
    assertThat(client.calls).containsSubsequence("maxLsn", "sourceTable", "keyMinMax ID");
    assertThat(client.calls.indexOf("maxLsn")).isLessThan(client.calls.indexOf("keyMinMax ID"));
  }

  @Test
  void aSingleIntegerKeyIsCutUniformlyUnderItsCurrentName() {
    client.minMax = Optional.of(List.of(1, 100));
    SnapshotPlan p = plan(4, null, null);
    assertThat(p.keys()).containsExactly("ID");
    assertThat(p.ranges()).extracting(PlannedRange::range).containsExactly(
        new KeyRange(null, List.of(26)), new KeyRange(List.of(26), List.of(51)),
        new KeyRange(List.of(51), List.of(76)), new KeyRange(List.of(76), null));
    assertThat(p.columns().read()).containsExactly("ID", "day");
  }

  @Test
  void onePartitionWhenAskedForOneOrTheTableIsEmptyOrHasOneKey() {
    assertThat(plan(1, null, null).ranges()).containsExactly(new PlannedRange(KeyRange.ALL, null));
    assertThat(client.calls).noneMatch(c -> c.startsWith("key"));
    assertThat(plan(4, null, null).ranges()).containsExactly(new PlannedRange(KeyRange.ALL, null));
    client.minMax = Optional.of(List.of(7, 7));
    assertThat(plan(4, null, null).ranges()).containsExactly(new PlannedRange(KeyRange.ALL, null));
  }

  @Test
  void otherKeysAreTiledAndUnbindableKeysReadWhole() {
    client.tiles = List.of(List.of(LocalDate.of(2026, 1, 1)));
    client.minMax = Optional.of(List.of(LocalDate.of(2025, 1, 1), LocalDate.of(2027, 1, 1)));
    assertThat(plan(2, "[\"day\"]", null).ranges()).extracting(PlannedRange::range).containsExactly(
        new KeyRange(null, List.of(LocalDate.of(2026, 1, 1))), new KeyRange(List.of(LocalDate.of(2026, 1, 1)), null));
    assertThat(client.calls).contains("keyTiles [day] 2");

    client.minMax = Optional.of(List.of("a", "b"));
    assertThat(plan(2, "[\"at\"]", null).ranges()).containsExactly(new PlannedRange(KeyRange.ALL, null));
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
    new SnapshotPlanner(client).checkChunks("dbo_t", Optional.empty(), SnapshotChunks.parse("[[0, 1, 5]]"));
    assertThatThrownBy(() -> new SnapshotPlanner(client).checkChunks("dbo_t", Optional.of(List.of("at")),
        SnapshotChunks.parse("[[0, \"10:00\", null]]")))
        .hasMessageContaining("dbo.t's key [at] cannot be read in ranges (at is time(7), which has no bindable bound)");
    assertThat(client.calls).doesNotContain("maxLsn").noneMatch(c -> c.startsWith("key"));
  }

  @Test
  void openChunksNeedNoKey() {
    client.source = new SourceTable(table, List.of());
    SnapshotPlan p = plan(8, null, "[[0, null, null], [1, null, null]]");
    assertThat(p.keys()).isEmpty();
    assertThat(p.ranges()).containsExactly(new PlannedRange(KeyRange.ALL, 0), new PlannedRange(KeyRange.ALL, 1));
  }

  @Test
  void aGoneInstanceFallsBackToTheTablesNewest() {
    client.instances.clear();
    client.instances.add(new CaptureInstance("dbo_t_v2", "dbo", "t", Lsn.of(0, 5), List.of("ID"), null));
    client.captured.put("dbo_t_v2", client.captured.get("dbo_t"));
    SnapshotPlan p = plan(1, null, null);
    assertThat(p.columns().read()).containsExactly("ID", "day");
  }
}
