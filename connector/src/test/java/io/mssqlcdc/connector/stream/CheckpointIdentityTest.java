package io.mssqlcdc.connector.stream;

import static io.mssqlcdc.fake.FakeRows.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.errors.CdcStateException;
import io.mssqlcdc.fake.FakeCdcDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the offset's identity check refuses and what it lets through (issue 8, defect 3): a
 * checkpoint reused for another table fails; the same table renamed ({@code sp_rename},
 * {@code ALTER SCHEMA ... TRANSFER}), which CDC keeps capturing under the same instance, resumes
 * with no gap and no duplicate, as the reference does.
 */
@Tag("spark")
class CheckpointIdentityTest {
  @TempDir Path tmp;
  FakeCdcDatabase db;
  Path ckpt;

  @BeforeEach
  void setUp() {
    db = FakeCdcDatabase.create(tmp.resolve("db"));
    db.createTable("dbo", "orders", "order_id int", "status varchar(20)").key("order_id");
    db.enableCdc("dbo", "orders");
    ckpt = tmp.resolve("ckpt");
  }

  private Map<String, String> options(String ci) {
    return StreamRuns.options(db.path().toString(), ci);
  }

  private void insert(String table, int id) {
    db.commit(tx -> tx.insert(table, row("order_id", id, "status", "new")));
  }

  private static List<Integer> ids(List<Row> rows) {
    return rows.stream().map(r -> (Integer) r.getAs("order_id")).toList();
  }

  private String lastOffset() throws Exception {
    try (var files = Files.list(ckpt.resolve("offsets"))) {
      Path last = files.filter(p -> p.getFileName().toString().matches("\\d+"))
          .max((a, b) -> Long.compare(Long.parseLong(a.getFileName().toString()), Long.parseLong(b.getFileName().toString())))
          .orElseThrow();
      List<String> lines = Files.readAllLines(last);
      return lines.get(lines.size() - 1);
    }
  }

  @Test
  void aRenamedTableResumesOnItsCheckpoint() throws Exception {
    insert("orders", 1);
    assertThat(ids(StreamRuns.availableNow(options("dbo_orders"), ckpt).rows())).containsExactly(1);
    insert("orders", 2);
    db.renameTable("dbo.orders", "dbo", "orders_renamed");
    insert("dbo.orders_renamed", 3);

    StreamRuns.Run run = StreamRuns.availableNow(options("dbo_orders"), ckpt);
    assertThat(ids(run.rows())).as("no gap, no duplicate").containsExactly(2, 3);
    assertThat(lastOffset()).contains("\"source\":\"dbo.orders_renamed\"");
    insert("dbo.orders_renamed", 4);
    assertThat(ids(StreamRuns.availableNow(options("dbo_orders"), ckpt).rows())).containsExactly(4);
  }

  @Test
  void aTableMovedToAnotherSchemaResumesOnItsCheckpoint() {
    insert("orders", 1);
    StreamRuns.availableNow(options("dbo_orders"), ckpt);
    db.renameTable("dbo.orders", "sales", "orders");
    insert("sales.orders", 2);
    assertThat(ids(StreamRuns.availableNow(options("dbo_orders"), ckpt).rows())).containsExactly(2);
  }

  @Test
  void aCheckpointOfAnotherTableIsStillRefused() {
    db.createTable("dbo", "invoices", "order_id int", "status varchar(20)").key("order_id");
    db.enableCdc("dbo", "invoices");
    insert("orders", 1);
    StreamRuns.availableNow(options("dbo_orders"), ckpt);
    insert("invoices", 2);
    assertThatThrownBy(() -> StreamRuns.availableNow(options("dbo_invoices"), ckpt))
        .satisfies(e -> assertThat(StreamRuns.rootCause(e)).isInstanceOf(CdcStateException.class)
            .hasMessageContaining("The checkpoint's offsets belong to source 'dbo.orders', but this query reads"
                + " 'dbo.invoices'. A checkpoint follows one table: use a new checkpointLocation for 'dbo.invoices'."
                + " (The checkpoint followed capture instance 'dbo_orders', which captures 'dbo.orders': it is not"
                + " this table renamed.)"));
  }

  /** A new table under the checkpoint's old name is another table all the same. */
  @Test
  void anotherTableUnderTheOldNameIsRefused() {
    insert("orders", 1);
    StreamRuns.availableNow(options("dbo_orders"), ckpt);
    db.renameTable("dbo.orders", "dbo", "orders_old");
    db.createTable("dbo", "orders", "order_id int", "status varchar(20)").key("order_id");
    db.enableCdc("dbo", "orders", "dbo_orders_new");
    insert("dbo.orders", 2);
    assertThatThrownBy(() -> StreamRuns.availableNow(options("dbo_orders_new"), ckpt))
        .satisfies(e -> assertThat(StreamRuns.rootCause(e)).isInstanceOf(CdcStateException.class)
            .hasMessageContaining("belong to source 'dbo.orders', but this query reads 'dbo.orders'")
            .hasMessageContaining("capture instance 'dbo_orders', which captures 'dbo.orders_old'"));
  }

  /**
   * After a switch, the user sets captureInstance to the newer instance once the default-named
   * one is disabled: the checkpoint's recorded instance is gone, but its default name resolves to
   * the table's current instances, so it is the same table.
   */
  @Test
  void theNewerInstanceConfiguredAfterTheOldOneIsDisabledResumes() {
    insert("orders", 1);
    db.enableCdc("dbo", "orders", "dbo_orders_v2");
    insert("orders", 2);
    assertThat(ids(StreamRuns.availableNow(options("dbo_orders"), ckpt).rows())).containsExactly(1, 2);
    db.disableCdc("dbo_orders");
    insert("orders", 3);
    assertThat(ids(StreamRuns.availableNow(options("dbo_orders_v2"), ckpt).rows())).containsExactly(3);
  }

  @Test
  void aRenameIsAWarningOfTheNextBatch() {
    insert("orders", 1);
    StreamRuns.availableNow(options("dbo_orders"), ckpt);
    db.renameTable("dbo.orders", "dbo", "orders2");
    insert("orders2", 2);
    StreamRuns.Run run = StreamRuns.availableNow(options("dbo_orders"), ckpt);
    assertThat(run.batches().get(0).report().orElseThrow().warnings()).singleElement().asString()
        .isEqualTo("mssql_cdc: the checkpoint's offsets name table 'dbo.orders', and its capture instance"
            + " 'dbo_orders' now captures 'dbo.orders2' (the table was renamed or moved to another schema): resuming;"
            + " offsets from now on name 'dbo.orders2'.");
  }

  @Test
  void offsetsRecordTheCaptureInstanceLastAndReadWithoutIt() {
    String json = "{\"lsn\":\"0x0000002A000001F00003\",\"commit_ts\":\"2026-09-28T14:03:12.117\",\"v\":1,"
        + "\"source\":\"dbo.orders\",\"capture_instance\":\"dbo_orders\"}";
    io.mssqlcdc.connector.CdcOffset o = io.mssqlcdc.connector.CdcOffset.fromJson(json);
    assertThat(o.captureInstance()).contains("dbo_orders");
    assertThat(o.json()).isEqualTo(json);
    assertThat(io.mssqlcdc.connector.CdcOffset.fromJson(
        "{\"lsn\":\"0x0000002A000001F00003\",\"commit_ts\":\"\",\"v\":1,\"source\":\"dbo.orders\"}").captureInstance())
        .isEmpty();
  }
}
