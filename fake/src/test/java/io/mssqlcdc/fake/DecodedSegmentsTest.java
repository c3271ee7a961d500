package io.mssqlcdc.fake;

import static io.mssqlcdc.fake.FakeRows.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.mssqlcdc.client.ChangeCursor;
import io.mssqlcdc.client.ChangeQuery;
import io.mssqlcdc.lsn.Lsn;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reads served from decoded segments equal reads from the files, for any column subset; repeated
 * reads are served from the cache, which is bounded and evicts the least recently used segment.
 */
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

  @AfterEach
  void emptyTheCache() {
    DecodedSegments.clear();
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

  /**
   * The second read is served decoded: it still returns the rows after every segment file was
   * overwritten (same size, same modification time) with bytes a file read refuses.
   */
  @Test
  void aRepeatedReadIsServedFromTheCache() throws IOException {
    List<String> first = read("id", "name", "amount");
    List<Path> segments;
    try (Stream<Path> files = Files.walk(dir.resolve("changes"))) {
      segments = files.filter(p -> p.toString().endsWith(".seg")).toList();
    }
    assertThat(segments).as("one segment per commit").hasSize(6);
    for (Path seg : segments) {
      FileTime modified = Files.getLastModifiedTime(seg);
      byte[] bytes = Files.readAllBytes(seg);
      java.util.Arrays.fill(bytes, 0, 4, (byte) 0); // the magic number
      Files.write(seg, bytes);
      Files.setLastModifiedTime(seg, modified);
    }
    assertThat(read("id", "name", "amount")).isEqualTo(first);
    assertThat(read("name")).as("another column subset, same decoded segments").hasSize(52);

    DecodedSegments.clear();
    assertThatThrownBy(() -> read("id")).as("a file read sees the overwritten bytes")
        .hasMessageContaining("bad magic number");
  }

  @Test
  void onlySegmentsOfACacheableSizeAreCached() {
    int largest = (int) (DecodedSegments.MAX_ROWS / 10);
    assertThat(DecodedSegments.cacheable(largest)).isTrue();
    assertThat(DecodedSegments.cacheable(largest + 1)).isFalse();
    DecodedSegments.put(dir.resolve("big.seg"), 1, 1, decoded(largest + 1));
    assertThat(DecodedSegments.get(dir.resolve("big.seg"), 1, 1)).isNull();
  }

  /** At most MAX_ROWS rows stay decoded; the least recently used segment goes first. */
  @Test
  void theLeastRecentlyUsedSegmentsAreEvictedBeyondTheBound() {
    int rows = (int) (DecodedSegments.MAX_ROWS / 10);
    assumeTrue(rows > 0, "the cache is off (-Dmssqlcdc.fake.cacheRows)");
    List<Path> files = new ArrayList<>();
    for (int i = 0; i < 11; i++) {
      files.add(dir.resolve("s" + i + ".seg"));
    }
    for (int i = 0; i < 10; i++) {
      DecodedSegments.put(files.get(i), i, 7, decoded(rows));
    }
    for (int i = 0; i < 10; i++) {
      assertThat(DecodedSegments.get(files.get(i), i, 7)).as("segment %d of 10, at the bound", i).isNotNull();
    }
    assertThat(DecodedSegments.get(files.get(0), 0, 7)).isNotNull(); // segment 0 is now the most recently used
    DecodedSegments.put(files.get(10), 10, 7, decoded(rows));
    assertThat(DecodedSegments.get(files.get(1), 1, 7)).as("least recently used: evicted").isNull();
    assertThat(DecodedSegments.get(files.get(0), 0, 7)).isNotNull();
    assertThat(DecodedSegments.get(files.get(10), 10, 7)).isNotNull();
    assertThat(DecodedSegments.get(files.get(2), 3, 7)).as("another key: other size").isNull();
    assertThat(DecodedSegments.get(files.get(2), 2, 8)).as("other modification time").isNull();
    assertThat(DecodedSegments.get(files.get(2), 2, 7)).isNotNull();
  }

  private static DecodedSegments.Decoded decoded(int rows) {
    return new DecodedSegments.Decoded(new String[0], new int[rows], new long[rows], new byte[rows], new int[rows],
        new Object[rows][]);
  }

  @Test
  void aPurgedRangeStillReadsEmptyAfterCaching() {
    List<String> all = read("id");
    Lsn last = Lsn.parse(all.get(all.size() - 1).split(" ")[0]);
    db.cleanup(ci, last);
    assertThat(read("id")).hasSize(2).allMatch(s -> s.startsWith(last.toString()));
  }
}
