package io.mssqlcdc.fake;

import static io.mssqlcdc.fake.FakeRows.key;
import static io.mssqlcdc.fake.FakeRows.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.client.ChangeCursor;
import io.mssqlcdc.client.ChangeQuery;
import io.mssqlcdc.client.KeyRange;
import io.mssqlcdc.client.RowCursor;
import io.mssqlcdc.client.SourceTable;
import io.mssqlcdc.client.TableQuery;
import io.mssqlcdc.client.TableQuery.Isolation;
import io.mssqlcdc.client.TableRef;
import io.mssqlcdc.errors.CdcConfigException;
import io.mssqlcdc.lsn.Lsn;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Snapshot reads of the source table: key ranges, MIN/MAX, NTILE tiles, commitBeforeRead. */
class FakeTableReadTest {
  @TempDir
  Path dir;

  FakeCdcDatabase db;
  FakeCdcClient client;
  final TableRef lines = new TableRef("sales", "lines");

  @BeforeEach
  void setUp() {
    db = FakeCdcDatabase.create(dir);
    db.createTable("sales", "lines", "region varchar(10)", "line int", "qty int").key("region", "line");
    db.enableCdc("sales", "lines");
    db.commit(tx -> tx
        .insert("sales.lines", row("region", "b", "line", 1, "qty", 10))
        .insert("sales.lines", row("region", null, "line", 1, "qty", 11))
        .insert("sales.lines", row("region", "a", "line", 2, "qty", 12))
        .insert("sales.lines", row("region", "a", "line", 1, "qty", 13))
        .insert("sales.lines", row("region", "c", "line", 1, "qty", 14)));
    client = db.client();
  }

  private List<List<Object>> read(KeyRange range, String... columns) {
    List<List<Object>> out = new ArrayList<>();
    try (RowCursor c = client.readTable(new TableQuery(lines, List.of(columns), List.of("region", "line"), range,
        Isolation.READ_COMMITTED, -1, 100))) {
      while (c.next()) {
        List<Object> r = new ArrayList<>();
        for (int i = 0; i < columns.length; i++) {
          r.add(c.value(i));
        }
        out.add(r);
      }
    }
    return out;
  }

  @Test
  void rangesAreHalfOpenWithNullFirstAndCompositeKeysLexicographic() {
    assertThat(read(KeyRange.ALL, "qty")).extracting(r -> r.get(0)).containsExactly(11, 13, 12, 10, 14);
    assertThat(read(new KeyRange(null, key("a", 2)), "qty")).extracting(r -> r.get(0)).containsExactly(11, 13);
    assertThat(read(new KeyRange(key("a", 2), key("c", 1)), "qty")).extracting(r -> r.get(0)).containsExactly(12, 10);
    assertThat(read(new KeyRange(key("a", 2), null), "qty")).extracting(r -> r.get(0)).containsExactly(12, 10, 14);
    assertThat(read(new KeyRange(Arrays.asList(null, 5), key("a", 1)), "region")).isEmpty();
  }

  @Test
  void keyMinMaxIgnoresNullsAndKeyTilesFollowNtile() {
    assertThat(client.keyMinMax(lines, "region", KeyRange.ALL)).contains(List.of("a", "c"));
    assertThat(client.keyMinMax(lines, "region", new KeyRange(key("b"), null))).contains(List.of("b", "c"));
    assertThat(client.keyMinMax(lines, "region", new KeyRange(key("d"), null))).isEmpty();
    // NTILE(2) over 5 keys: 3 + 2; NTILE(3): 2 + 2 + 1
    assertThat(client.keyTiles(lines, List.of("region", "line"), 2)).containsExactly(key("b", 1));
    assertThat(client.keyTiles(lines, List.of("region", "line"), 3)).containsExactly(key("a", 2), key("c", 1));
    assertThat(client.keyTiles(lines, List.of("region", "line"), 9)).hasSize(4);
    assertThat(client.sourceTable("sales_lines")).isEqualTo(new SourceTable(lines, List.of("region", "line")));
  }

  @Test
  void aCommitQueuedBeforeReadLandsBetweenTheStampAndTheRead() {
    Lsn stamp = client.maxLsn().orElseThrow();
    db.commitBeforeRead(tx -> tx.update("sales.lines", row("region", "c", "line", 1, "qty", 99)));
    assertThat(client.maxLsn()).contains(stamp);
    assertThat(read(new KeyRange(key("c", 1), null), "qty")).containsExactly(List.of(99));
    Lsn after = client.maxLsn().orElseThrow();
    assertThat(after).isGreaterThan(stamp);
    try (ChangeCursor c = client.changes(new ChangeQuery("sales_lines", client.incrementLsn(stamp), after,
        List.of("qty"), true, 10))) {
      assertThat(c.next()).isTrue();
      assertThat(c.value(0)).isEqualTo(14);
      assertThat(c.next()).isTrue();
      assertThat(c.value(0)).isEqualTo(99);
      assertThat(c.next()).isFalse();
    }
    assertThat(read(new KeyRange(key("c", 1), null), "qty")).as("applied once").containsExactly(List.of(99));
    assertThat(client.maxLsn()).contains(after);
  }

  /**
   * A range read decodes a row up to its last key column, then skips the rest of a row outside
   * the range: with the key after columns of every width (text, decimals, binary, NULLs), the rows
   * in the range still read whole and right, wherever the skipped rows lie.
   */
  @Test
  void aRangeReadSkipsTheRowsOutsideItAndReadsTheOthersWhole() {
    db.createTable("dbo", "wide", "note nvarchar(40)", "amount decimal(18,2)", "blob varbinary(8)", "k int")
        .key("k");
    db.enableCdc("dbo", "wide");
    db.commit(tx -> {
      for (int k = 1; k <= 9; k++) {
        tx.insert("dbo.wide", row("note", k % 3 == 0 ? null : "note " + k + " – é", "amount",
            new java.math.BigDecimal(k + ".25"), "blob", k % 2 == 0 ? null : new byte[] {(byte) k, 7}, "k", k));
      }
    });
    FakeCdcClient c = db.client();
    TableRef wide = new TableRef("dbo", "wide");
    List<List<Object>> got = new ArrayList<>();
    try (RowCursor r = c.readTable(new TableQuery(wide, List.of("k", "note", "amount", "blob"), List.of("k"),
        new KeyRange(key(4), key(7)), Isolation.READ_COMMITTED, -1, 100))) {
      while (r.next()) {
        got.add(Arrays.asList(r.value(0), r.value(1), r.value(2),
            r.value(3) == null ? null : Arrays.toString((byte[]) r.value(3))));
      }
    }
    assertThat(got).containsExactly(
        Arrays.asList(4, "note 4 – é", new java.math.BigDecimal("4.25"), null),
        Arrays.asList(5, "note 5 – é", new java.math.BigDecimal("5.25"), "[5, 7]"),
        Arrays.asList(6, null, new java.math.BigDecimal("6.25"), null));
    List<Object> last = new ArrayList<>();
    try (RowCursor r = c.readTable(new TableQuery(wide, List.of("note"), List.of("k"), new KeyRange(key(8), null),
        Isolation.READ_COMMITTED, -1, 100))) {
      while (r.next()) {
        last.add(r.value(0));
      }
    }
    assertThat(last).containsExactly("note 8 – é", null);
  }

  @Test
  void aRangeWithoutKeysAndUnknownColumnsAreRefused() {
    assertThatThrownBy(() -> client.readTable(new TableQuery(lines, List.of("qty"), List.of(),
        new KeyRange(key("a"), null), Isolation.SNAPSHOT, -1, 10)))
        .isInstanceOf(CdcConfigException.class)
        .hasMessageStartingWith("MSSQL_CDC-100: A key range on sales.lines must be KeyRange.ALL when no keys are given");
    assertThatThrownBy(() -> client.keyMinMax(new TableRef("dbo", "nope"), "id", KeyRange.ALL))
        .isInstanceOf(CdcConfigException.class)
        .hasMessage("MSSQL_CDC-100: Table 'dbo.nope' does not exist in the fake database (tables: sales.lines)."
            + " Create it with createTable first.");
  }
}
