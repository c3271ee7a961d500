package io.mssqlcdc.fake;

import static io.mssqlcdc.fake.FakeRows.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.mssqlcdc.client.ChangeCursor;
import io.mssqlcdc.client.ChangeQuery;
import io.mssqlcdc.lsn.Lsn;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Reads served from decoded segments equal reads from the files, for any column subset. */
class DecodedSegmentsTest {
  @TempDir
  Path dir;

  FakeCdcDatabase db;
  String ci;

  @BeforeEach
  void setUp() {
    DecodedSegments.clear();
    db = FakeCdcDatabase.create(dir);
    db.createTable("dbo", "t", "id int", "name nvarchar(20)", "amount decimal(18,2)").key("id");
    ci = db.enableCdc("dbo", "t");
    for (int c = 0; c < 5; c++) {
      int base = c * 10;
      db.commit(tx -> {
        for (int i = base; i < base + 10; i++) {
          tx.insert("dbo.t", row("id", i, "name", "n" + i, "amount", new BigDecimal(i + ".25")));
        }
      });
    }
    db.commit(tx -> tx.update("dbo.t", row("id", 3, "name", "three", "amount", new BigDecimal("3.25"))));
  }

  private List<String> read(String... columns) {
    List<String> out = new ArrayList<>();
    try (ChangeCursor c = db.client().changes(new ChangeQuery(ci, Lsn.ZERO, Lsn.MAX, List.of(columns), true, 10))) {
      while (c.next()) {
        StringBuilder sb = new StringBuilder(c.startLsn() + " " + c.seqval() + " " + c.operation() + " " + c.commandId());
        for (int i = 0; i < columns.length; i++) {
          sb.append(' ').append(c.value(i));
        }
        out.add(sb.toString());
      }
    }
    return out;
  }

  @Test
  void cachedReadsEqualFileReads() {
    List<String> first = read("amount", "id", "missing");
    assertThat(first).hasSize(52);
    assertThat(read("amount", "id", "missing")).isEqualTo(first);
    // another column subset is served from the same decoded segments
    List<String> names = read("name");
    DecodedSegments.clear();
    assertThat(read("name")).isEqualTo(names);
    assertThat(names.get(names.size() - 1)).endsWith(" 4 1 three");
  }

  @Test
  void onlySegmentsOfACacheableSizeAreCached() {
    assertThat(DecodedSegments.cacheable((int) (DecodedSegments.MAX_ROWS / 10))).isTrue();
    assertThat(DecodedSegments.cacheable((int) (DecodedSegments.MAX_ROWS / 10) + 1)).isFalse();
  }

  @Test
  void aPurgedRangeStillReadsEmptyAfterCaching() {
    List<String> all = read("id");
    Lsn last = Lsn.parse(all.get(all.size() - 1).split(" ")[0]);
    db.cleanup(ci, last);
    assertThat(read("id")).hasSize(2).allMatch(s -> s.startsWith(last.toString()));
  }
}
