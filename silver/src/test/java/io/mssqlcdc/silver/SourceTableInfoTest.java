package io.mssqlcdc.silver;

import static org.assertj.core.api.Assertions.assertThat;

import io.mssqlcdc.client.CapturedColumn;
import io.mssqlcdc.types.SqlServerType;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which columns' before images always carry the row's value (ApplyHistory's state at a snapshot). */
class SourceTableInfoTest {
  @TempDir java.nio.file.Path tmp;

  private static CapturedColumn col(String name, int ordinal, String type, boolean computed) {
    return new CapturedColumn(name, ordinal, ordinal, SqlServerType.parse(type), computed);
  }

  @Test
  void largeObjectsComputedColumnsAndColumnsSomeInstanceLacksAreNotCarried() {
    List<CapturedColumn> v1 = List.of(col("Id", 1, "int", false), col("Status", 2, "varchar(20)", false),
        col("Note", 3, "nvarchar(max)", false), col("Doc", 4, "xml", false), col("Total", 5, "decimal(18,2)", true),
        col("Blob", 6, "varbinary(8000)", false), col("Old", 7, "text", false));
    List<CapturedColumn> v2 = List.of(col("id", 1, "int", false), col("STATUS", 2, "varchar(20)", false),
        col("Blob", 3, "varbinary(8000)", false));
    assertThat(SourceTableInfo.carried(List.of(v1))).containsExactly("id", "status", "blob");
    assertThat(SourceTableInfo.carried(List.of(v1, v2))).as("names matched ignoring case; Note etc. not in v2")
        .containsExactly("id", "status", "blob");
    assertThat(SourceTableInfo.carried(List.of(v2, v1))).containsExactly("id", "status", "blob");

    SourceTableInfo info = new SourceTableInfo(List.of("Id"), Set.of("dbo_t"), Set.of("id", "status"));
    assertThat(info.uncarriedMask(List.of("Id", "Status", "Note", "Gone"))).containsExactly(false, false, true, true);
    assertThat(new SourceTableInfo(List.of("Id"), Set.of("dbo_t"), null).uncarriedMask(List.of("Id"))).isNull();
  }

  /** The configured instance dropped after a switch (crash seeds 8801, 8804): the types come from the remaining one. */
  @Test
  void theColumnsTypesComeFromTheInstancesThatExist() {
    io.mssqlcdc.fake.FakeCdcDatabase db = io.mssqlcdc.fake.FakeCdcDatabase.create(tmp.resolve("db"));
    db.createTable("dbo", "orders", "order_id int", "status varchar(20)", "note nvarchar(max)").key("order_id");
    db.enableCdc("dbo", "orders");
    db.enableCdc("dbo", "orders", "dbo_orders_v2");
    db.disableCdc("dbo_orders");
    io.mssqlcdc.options.CdcReaderOptions reader = io.mssqlcdc.options.CdcReaderOptions.parse(java.util.Map.of(
        "backend", "fake", "fakePath", db.path().toString(), "captureInstance", "dbo_orders"),
        io.mssqlcdc.options.CdcReaderOptions.Reader.STREAM);
    SourceTableInfo info = SourceTableInfo.resolve("dbo_orders", null, reader, true);
    assertThat(info.keys()).containsExactly("order_id");
    assertThat(info.carriedLower()).containsExactly("order_id", "status");
    assertThat(SourceTableInfo.resolve("dbo_orders", null, reader).carriedLower()).as("not asked for").isNull();
  }
}
