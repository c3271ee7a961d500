package io.mssqlcdc.catalog;

import static io.mssqlcdc.fake.FakeRows.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.fake.FakeCdcDatabase;
import io.mssqlcdc.sink.SharedDeltaSpark;
import java.nio.file.Path;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * On Spark 4.1 (src/test/spark-4.1) the catalog loads and reads, and the {@code CHANGES} clause is
 * not there: 4.1's grammar has none (docs/SQL.md).
 */
@Tag("spark")
class CdcChangesAbsentTest {
  static final SparkSession SPARK = SharedDeltaSpark.spark();

  @TempDir static Path dir;

  @Test
  void theCatalogReadsButSpark41HasNoChangesClause() {
    FakeCdcDatabase db = FakeCdcDatabase.create(dir.resolve("db"));
    db.createTable("dbo", "orders", "order_id int", "status varchar(20)").key("order_id");
    db.enableCdc("dbo", "orders");
    db.commit(tx -> tx.insert("orders", row("order_id", 1, "status", "new")));
    SPARK.conf().set("spark.sql.catalog.cdc_41", CdcCatalog.class.getName());
    SPARK.conf().set("spark.sql.catalog.cdc_41.backend", "fake");
    SPARK.conf().set("spark.sql.catalog.cdc_41.fakePath", db.path().toString());
    assertThat(SPARK.sql("SELECT count(*) FROM cdc_41.dbo.orders").first().getLong(0)).isEqualTo(1L);
    assertThatThrownBy(() -> SPARK.sql("SELECT * FROM cdc_41.dbo.orders CHANGES FROM VERSION '0x0'").collect())
        .hasMessageContaining("PARSE_SYNTAX_ERROR");
  }
}
