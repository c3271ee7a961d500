package io.mssqlcdc.fake;

import static io.mssqlcdc.fake.FakeRows.key;
import static io.mssqlcdc.fake.FakeRows.row;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.LocalDateTime;

/**
 * Writes the format-compatibility fixture that {@link FormatCompatTest} reads. Run once per
 * format version and commit its output under {@code src/test/resources/compat/v<n>}; never
 * regenerate an existing version's fixture. Arg: the output directory (must not exist).
 */
public final class CompatFixtureMain {
  private CompatFixtureMain() {}

  public static void main(String[] args) {
    try (FakeCdcDatabase db = FakeCdcDatabase.create(Path.of(args[0]))) {
      db.serverTimeZone("America/Sao_Paulo");
      db.createTable("dbo", "orders", "order_id int", "status nvarchar(20)", "amount decimal(18,2)",
          "created datetime2(3)", "guid uniqueidentifier", "total decimal(18,2) computed").key("order_id");
      db.enableCdc("dbo", "orders");
      db.commitAt(LocalDateTime.parse("2026-03-01T10:00:00.123"), tx -> tx
          .insert("orders", row("order_id", 1, "status", "new", "amount", new BigDecimal("9.90"),
              "created", LocalDateTime.parse("2026-03-01T09:59:59.5"), "guid", "6f9619ff-8b86-d011-b42d-00c04fc964ff"))
          .insert("orders", row("order_id", 2, "status", "ação", "amount", "1.00")));
      db.idleAt(LocalDateTime.parse("2026-03-01T10:01:00"));
      db.addColumn("orders", "note nvarchar(100)");
      db.enableCdc("dbo", "orders", "orders_v2", "order_id", "amount", "note");
      db.commitAt(LocalDateTime.parse("2026-03-01T10:02:00"), tx -> tx
          .update("orders", row("order_id", 1, "amount", "10.50", "note", "n"))
          .delete("orders", key(2)));
      db.commitBeforeRead(tx -> tx.insert("orders", row("order_id", 3, "status", "queued")));
    }
  }
}
