package io.mssqlcdc.fake;

import static org.assertj.core.api.Assertions.assertThat;

import io.mssqlcdc.client.ChangeCursor;
import io.mssqlcdc.client.ChangeQuery;
import io.mssqlcdc.client.DdlEvent;
import io.mssqlcdc.client.KeyRange;
import io.mssqlcdc.client.RowCursor;
import io.mssqlcdc.client.TableQuery;
import io.mssqlcdc.client.TableRef;
import io.mssqlcdc.lsn.Lsn;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Directories written by format version 1 ({@link CompatFixtureMain}, committed under
 * {@code src/test/resources/compat/v1}) stay readable and writable by this release.
 */
class FormatCompatTest {
  @TempDir
  Path dir;

  @BeforeEach
  void copyFixture() throws Exception {
    Path fixture = Path.of(getClass().getResource("/compat/v1/FORMAT").toURI()).getParent();
    try (Stream<Path> files = Files.walk(fixture)) {
      for (Path p : (Iterable<Path>) files::iterator) {
        Path target = dir.resolve(fixture.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else {
          Files.copy(p, target);
        }
      }
    }
  }

  private List<List<Object>> changes(FakeCdcClient client, String ci, String... columns) {
    List<List<Object>> out = new ArrayList<>();
    try (ChangeCursor c = client.changes(new ChangeQuery(ci, Lsn.ZERO, Lsn.MAX, List.of(columns), true, 10))) {
      while (c.next()) {
        List<Object> r = new ArrayList<>(Arrays.asList(c.startLsn().hex(), c.operation(), c.commandId()));
        for (int i = 0; i < columns.length; i++) {
          r.add(c.value(i));
        }
        out.add(r);
      }
    }
    return out;
  }

  @Test
  void aVersionOneDirectoryReadsAsWritten() {
    try (FakeCdcClient client = FakeCdcClient.open(dir)) {
      assertThat(client.sourceTimeZone()).isEqualTo("America/Sao_Paulo");
      assertThat(client.maxLsn()).contains(Lsn.parse("0x0000002A000001000031"));
      assertThat(client.commitTime(Lsn.parse("0x0000002A000001000011")))
          .contains(Instant.parse("2026-03-01T13:00:00.123Z"));
      assertThat(client.commitTime(Lsn.parse("0x0000002A000001000021"))).contains(Instant.parse("2026-03-01T13:01:00Z"));
      assertThat(changes(client, "dbo_orders", "order_id", "status", "amount", "created", "guid", "total")).containsExactly(
          Arrays.asList("0x0000002A000001000011", 2, 1, 1, "new", new BigDecimal("9.90"),
              LocalDateTime.parse("2026-03-01T09:59:59.500"), "6F9619FF-8B86-D011-B42D-00C04FC964FF", null),
          Arrays.asList("0x0000002A000001000011", 2, 2, 2, "ação", new BigDecimal("1.00"), null, null, null),
          Arrays.asList("0x0000002A000001000031", 3, 1, 1, "new", new BigDecimal("9.90"),
              LocalDateTime.parse("2026-03-01T09:59:59.500"), "6F9619FF-8B86-D011-B42D-00C04FC964FF", null),
          Arrays.asList("0x0000002A000001000031", 4, 1, 1, "new", new BigDecimal("10.50"),
              LocalDateTime.parse("2026-03-01T09:59:59.500"), "6F9619FF-8B86-D011-B42D-00C04FC964FF", null),
          Arrays.asList("0x0000002A000001000031", 1, 2, 2, "ação", new BigDecimal("1.00"), null, null, null));
      assertThat(changes(client, "orders_v2", "order_id", "note")).containsExactly(
          Arrays.asList("0x0000002A000001000031", 3, 2, 1, null),
          Arrays.asList("0x0000002A000001000031", 4, 2, 1, "n"),
          Arrays.asList("0x0000002A000001000031", 1, 3, 2, null));
      assertThat(client.ddlHistory("dbo_orders", Lsn.ZERO, Lsn.MAX)).extracting(DdlEvent::lsn, DdlEvent::command)
          .containsExactly(org.assertj.core.api.Assertions.tuple(Lsn.parse("0x0000002A000001000022"),
              "ALTER TABLE [dbo].[orders] ADD [note] nvarchar(100)"));
      assertThat(client.captureInstances("orders_v2").get(1).startLsn()).isEqualTo(Lsn.parse("0x0000002A000001000031"));
    }
  }

  @Test
  void aVersionOneDirectoryTakesNewCommitsAndItsQueuedTransaction() {
    try (FakeCdcClient client = FakeCdcClient.open(dir)) {
      List<Object> ids = new ArrayList<>();
      try (RowCursor rows = client.readTable(new TableQuery(new TableRef("dbo", "orders"), List.of("order_id"),
          List.of("order_id"), KeyRange.ALL, TableQuery.Isolation.SNAPSHOT, -1, 10))) {
        while (rows.next()) {
          ids.add(rows.value(0));
        }
      }
      assertThat(ids).as("row 3 was queued before read").containsExactly(1, 3);
      try (FakeCdcDatabase db = FakeCdcDatabase.open(dir)) {
        Lsn lsn = db.commit(tx -> tx.insert("orders", FakeRows.row("order_id", 4)));
        assertThat(client.maxLsn()).contains(lsn);
      }
    }
  }
}
