package io.mssqlcdc.silver;

import static io.mssqlcdc.fake.FakeRows.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * After a capture-instance switch bronze holds rows of the table's older and newer instances:
 * silver applies both (with the stream's options, which name them) and gains the newer instance's
 * column; rows of another table's instance fail the call, naming it, and rows without one are skipped
 * (the position a first call prepares ahead from bronze's largest LSN is then prepared again).
 */
@Tag("spark")
class CaptureInstanceSwitchTest {
  @TempDir Path tmp;

  @Test
  void rowsOfBothInstancesAreAppliedAndAnotherTablesInstanceFails() throws Exception {
    SilverFixture f = new SilverFixture(tmp);
    Workload.createTable(f.db);
    f.db.createTable("dbo", "customers", "id int", "name varchar(20)").key("id");
    f.db.enableCdc("dbo", "customers");
    f.db.commit(tx -> tx.insert("orders", row("order_id", 1, "code", 10, "status", "new"))
        .insert("orders", row("order_id", 2, "code", 20, "status", "new")));
    f.await(f.stream("dbo_orders").toDelta());
    String silver = f.silver("silver");
    // Keys default to the capture instance's unique index, read through the options.
    f.apply(silver, "dbo_orders").run();
    assertThat(Arrays.asList(SilverFixture.SPARK.read().format("delta").load(silver).columns()))
        .containsExactly("order_id", "code", "status", "_start_lsn", "_commit_ts");

    f.db.addColumn("dbo.orders", "note varchar(20)");
    f.db.enableCdc("dbo", "orders", "dbo_orders_v2");
    f.db.commit(tx -> tx.update("orders", row("order_id", 1, "status", "paid", "note", "n1"))
        .insert("orders", row("order_id", 3, "code", 30, "status", "new", "note", "n3")));
    f.await(f.stream("dbo_orders").toDelta());
    assertThat(SilverFixture.SPARK.read().format("delta").load(f.bronze)
        .select("_capture_instance").distinct().count()).isEqualTo(2);

    // Without the options, silver knows only dbo_orders: the newer instance's rows fail the call.
    assertThatThrownBy(() -> ApplyChanges.builder(SilverFixture.SPARK).bronze(f.bronze).target(silver)
        .captureInstance("dbo_orders").keys(List.of("order_id")).controlTable(f.control).factsTable(f.facts).run())
        .hasMessageContaining("MSSQL_CDC-785")
        .hasMessageContaining(f.bronze + " holds rows of capture instance 'dbo_orders_v2', which is not 'dbo_orders'"
            + " or another capture instance of its table: pass options (the stream's) to read them from SQL Server");

    ApplyResult r = f.apply(silver, "dbo_orders").run();
    assertThat(r.rebuilt()).isFalse();
    List<String> columns = List.of("code", "status", "note");
    assertThat(SilverFixture.rows(silver, "order_id", columns)).isEqualTo(f.table("order_id", columns));
    assertThat(SilverFixture.rows(silver, "order_id", columns).get("2")).containsExactly("20", "new", "null");

    // A silver of another table on this bronze: its first call reads every change, of dbo_orders.
    assertThatThrownBy(() -> f.apply(f.silver("customers"), "dbo_customers").run())
        .hasMessageContaining("MSSQL_CDC-785")
        .hasMessageContaining("holds rows of capture instance 'dbo_orders") // either of the table's two
        .hasMessageContaining("which is not 'dbo_customers' or another capture instance of its table. Silver applies"
            + " one source table: give each table its own bronze and silver.");
    // Before anything was created: a silver made with dbo_orders' columns would keep them once the call is fixed.
    assertThat(java.nio.file.Files.exists(java.nio.file.Path.of(f.silver("customers")))).isFalse();

    // A row without a capture instance (skipped) holds bronze's largest LSN: a first call's position, prepared
    // beside its write with that LSN as the likely newest change, is prepared again with the write's.
    org.apache.spark.sql.Dataset<org.apache.spark.sql.Row> bronze = SilverFixture.SPARK.read().format("delta")
        .load(f.bronze);
    bronze.limit(1).withColumn("_capture_instance", org.apache.spark.sql.functions.lit(null).cast("string"))
        .withColumn("_start_lsn", org.apache.spark.sql.functions.lit("0x7FFFFFFF7FFFFFFF7FFF"))
        .write().format("delta").mode("append").save(f.bronze);
    String again = f.silver("again");
    ApplyResult first = f.apply(again, "dbo_orders").run();
    assertThat(first.appliedLsn()).isEqualTo(r.appliedLsn());
    assertThat(f.controlRow(again).get("applied_lsn")).isEqualTo(r.appliedLsn().orElseThrow());
    assertThat(SilverFixture.rows(again, "order_id", columns)).isEqualTo(f.table("order_id", columns));
  }
}
