package io.mssqlcdc.catalog;

import static io.mssqlcdc.fake.FakeRows.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.fake.FakeCdcDatabase;
import io.mssqlcdc.sink.SharedDeltaSpark;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.Trigger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The catalog's namespaces and tables over the fake: SQL reads the snapshot, a stream the changes. */
@Tag("spark")
class CdcCatalogTest {
  static final SparkSession SPARK = SharedDeltaSpark.spark();

  @TempDir static Path dir;
  static FakeCdcDatabase db;

  @BeforeAll
  static void setUp() {
    db = FakeCdcDatabase.create(dir.resolve("db"));
    db.createTable("dbo", "orders", "order_id int", "status varchar(20)").key("order_id");
    db.enableCdc("dbo", "orders");
    db.createTable("sales", "lines", "line_id int", "qty int").key("line_id");
    db.enableCdc("sales", "lines");
    db.createTable("dbo", "notes", "note_id int").key("note_id"); // not enabled: not listed
    db.commit(tx -> tx.insert("orders", row("order_id", 1, "status", "new"))
        .insert("orders", row("order_id", 2, "status", "paid")));
    db.commit(tx -> tx.update("orders", row("order_id", 1, "status", "shipped")));
    SPARK.conf().set("spark.sql.catalog.cdc_t", CdcCatalog.class.getName());
    SPARK.conf().set("spark.sql.catalog.cdc_t.backend", "fake");
    SPARK.conf().set("spark.sql.catalog.cdc_t.fakePath", db.path().toString());
  }

  private static List<String> strings(Dataset<Row> df, String column) {
    return df.collectAsList().stream().map(r -> String.valueOf((Object) r.getAs(column))).toList();
  }

  @Test
  void namespacesAreSchemasAndTablesAreTheCdcEnabledTables() {
    assertThat(strings(SPARK.sql("SHOW NAMESPACES IN cdc_t"), "namespace")).containsExactly("dbo", "sales");
    assertThat(strings(SPARK.sql("SHOW TABLES IN cdc_t.dbo"), "tableName")).containsExactly("orders");
    assertThat(strings(SPARK.sql("SHOW TABLES IN cdc_t.sales"), "tableName")).containsExactly("lines");
    assertThat(SPARK.sql("DESCRIBE TABLE EXTENDED cdc_t.dbo.orders").where("col_name = 'Table Properties'")
        .first().getString(1)).contains("capture_instance=dbo_orders", "capture_instances=dbo_orders", "key=order_id");
    assertThatThrownBy(() -> SPARK.sql("SHOW TABLES IN cdc_t.nope").collect())
        .hasMessageContaining("SCHEMA_NOT_FOUND");
  }

  @Test
  void selectReadsTheSnapshotInTheStreamsSchema() {
    Dataset<Row> viaCatalog = SPARK.sql("SELECT * FROM cdc_t.dbo.orders ORDER BY order_id");
    Dataset<Row> viaSource = SPARK.read().format("mssql_cdc_snapshot").option("backend", "fake")
        .option("fakePath", db.path().toString()).option("captureInstance", "dbo_orders").load().orderBy("order_id");
    assertThat(viaCatalog.schema()).isEqualTo(viaSource.schema());
    assertThat(viaCatalog.collectAsList()).isEqualTo(viaSource.collectAsList());
    assertThat(SPARK.sql("SELECT order_id, status, _operation, _capture_instance FROM cdc_t.dbo.orders"
        + " ORDER BY order_id").collectAsList().stream().map(Row::toString).toList())
        .containsExactly("[1,shipped,0,dbo_orders]", "[2,paid,0,dbo_orders]");
    // Case-insensitive names, as SQL Server's default collation matches them.
    assertThat(SPARK.sql("SELECT count(*) FROM cdc_t.DBO.Orders").first().getLong(0)).isEqualTo(2L);
  }

  @Test
  void aStreamingReadOfTheTableIsTheChangeStream() throws Exception {
    Dataset<Row> changes = SPARK.readStream().table("cdc_t.dbo.orders");
    StreamingQuery q = changes.select("order_id", "status", "_operation").writeStream().format("memory")
        .queryName("cdc_t_orders_changes").option("checkpointLocation", dir.resolve("chk-changes").toString())
        .trigger(Trigger.AvailableNow()).start();
    q.awaitTermination();
    assertThat(SPARK.sql("SELECT * FROM cdc_t_orders_changes ORDER BY _operation, order_id, status").collectAsList()
        .stream().map(Row::toString).toList())
        .containsExactly("[1,new,2]", "[2,paid,2]", "[1,new,3]", "[1,shipped,4]");
  }

  @Test
  void aReadsOptionsGoOverTheCatalogsAndSchemaOptionsAreRefused() throws Exception {
    StreamingQuery q = SPARK.readStream().option("startingLsn", "latest").table("cdc_t.dbo.orders")
        .writeStream().format("memory").queryName("cdc_t_orders_latest")
        .option("checkpointLocation", dir.resolve("chk-latest").toString()).trigger(Trigger.AvailableNow()).start();
    q.awaitTermination();
    assertThat(SPARK.sql("SELECT * FROM cdc_t_orders_latest").count()).isZero();
    assertThatThrownBy(() -> SPARK.read().option("columns", "order_id INT").table("cdc_t.dbo.orders").collect())
        .hasMessageContaining("MSSQL_CDC-100")
        .hasMessageContaining("Option 'columns' cannot be set on catalog 'cdc_t' tables: it changes the table's"
            + " columns");
    assertThatThrownBy(() -> SPARK.read().option("fetchSise", "10").table("cdc_t.dbo.orders").collect())
        .hasMessageContaining("MSSQL_CDC-101").hasMessageContaining("did you mean 'fetchSize'");
  }

  @Test
  void snapshotOnlyOptionsOfTheCatalogApplyToBatchReadsAndAreLeftOutOfStreams() throws Exception {
    SPARK.conf().set("spark.sql.catalog.cdc_iso", CdcCatalog.class.getName());
    SPARK.conf().set("spark.sql.catalog.cdc_iso.backend", "fake");
    SPARK.conf().set("spark.sql.catalog.cdc_iso.fakePath", db.path().toString());
    SPARK.conf().set("spark.sql.catalog.cdc_iso.isolationLevel", "snapshot");
    assertThat(SPARK.sql("SELECT count(*) FROM cdc_iso.dbo.orders").first().getLong(0)).isEqualTo(2L);
    StreamingQuery q = SPARK.readStream().table("cdc_iso.dbo.orders").writeStream().format("memory")
        .queryName("cdc_iso_orders").option("checkpointLocation", dir.resolve("chk-iso").toString())
        .trigger(Trigger.AvailableNow()).start();
    q.awaitTermination();
    assertThat(SPARK.sql("SELECT * FROM cdc_iso_orders").count()).isEqualTo(4L);
    // Given to the stream's own read, the stream refuses it as format("mssql_cdc") does.
    assertThatThrownBy(() -> SPARK.readStream().option("snapshotLsn", "0x01").table("cdc_iso.dbo.orders")
        .writeStream().format("memory").queryName("cdc_iso_refused")
        .option("checkpointLocation", dir.resolve("chk-iso-refused").toString())
        .trigger(Trigger.AvailableNow()).start().awaitTermination())
        .hasStackTraceContaining("MSSQL_CDC-100")
        .hasStackTraceContaining("Option 'snapshotLsn' must be set only on format(\"mssql_cdc_snapshot\")");
  }

  @Test
  void unknownTablesAreNotFoundAndDdlIsRefused() {
    assertThatThrownBy(() -> SPARK.sql("SELECT * FROM cdc_t.dbo.notes").collect())
        .hasMessageContaining("TABLE_OR_VIEW_NOT_FOUND");
    assertThatThrownBy(() -> SPARK.sql("DROP TABLE cdc_t.dbo.orders"))
        .hasMessageContaining("MSSQL_CDC-822")
        .hasMessageContaining("Catalog 'cdc_t' cannot drop table dbo.orders: it lists SQL Server's CDC-enabled"
            + " tables");
  }

  @Test
  void catalogOptionsAreCheckedAndTheConnectionStringIsMasked() {
    SPARK.conf().set("spark.sql.catalog.cdc_bad", CdcCatalog.class.getName());
    SPARK.conf().set("spark.sql.catalog.cdc_bad.backend", "fake");
    SPARK.conf().set("spark.sql.catalog.cdc_bad.fakePth", db.path().toString());
    assertThatThrownBy(() -> SPARK.sql("SHOW NAMESPACES IN cdc_bad").collect())
        .hasMessageContaining("MSSQL_CDC-101").hasMessageContaining("Unknown option 'fakePth': did you mean"
            + " 'fakePath'?");

    SPARK.conf().set("spark.sql.catalog.cdc_ci", CdcCatalog.class.getName());
    SPARK.conf().set("spark.sql.catalog.cdc_ci.backend", "fake");
    SPARK.conf().set("spark.sql.catalog.cdc_ci.fakePath", db.path().toString());
    SPARK.conf().set("spark.sql.catalog.cdc_ci.captureInstance", "dbo_orders");
    assertThatThrownBy(() -> SPARK.sql("SHOW NAMESPACES IN cdc_ci").collect())
        .hasMessageContaining("MSSQL_CDC-100")
        .hasMessageContaining("Option 'captureInstance' cannot be set on catalog 'cdc_ci' tables");

    SPARK.conf().set("spark.sql.catalog.cdc_pw", CdcCatalog.class.getName());
    SPARK.conf().set("spark.sql.catalog.cdc_pw.backend", "fake");
    SPARK.conf().set("spark.sql.catalog.cdc_pw.fakePath", db.path().toString());
    SPARK.conf().set("spark.sql.catalog.cdc_pw.connectionString", "jdbc:sqlserver://h;user=u;password=s3cret");
    Dataset<Row> df = SPARK.sql("SELECT * FROM cdc_pw.dbo.orders");
    String plan = df.queryExecution().explainString(org.apache.spark.sql.execution.ExtendedMode$.MODULE$);
    assertThat(plan).contains("cdc_pw.dbo.orders").contains("password=***").doesNotContain("s3cret");
    assertThat(df.count()).isEqualTo(2L);
  }
}
