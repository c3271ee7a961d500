package io.mssqlcdc.sink.pipeline;

import static io.mssqlcdc.fake.FakeRows.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.fake.FakeCdcDatabase;
import io.mssqlcdc.sink.SharedDeltaSpark;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Many tables of one database at once (reference-behaviour §18). */
@Tag("spark")
class FanOutTest {
  @TempDir Path tmp;
  SparkSession spark = SharedDeltaSpark.spark();

  private FakeCdcDatabase threeTables() {
    FakeCdcDatabase db = FakeCdcDatabase.create(tmp.resolve("db"));
    for (String t : List.of("orders", "customers", "items")) {
      db.createTable("dbo", t, "id int", "name varchar(20)").key("id");
      db.enableCdc("dbo", t);
      for (int i = 1; i <= 3; i++) {
        int id = i;
        db.commit(tx -> tx.insert(t, row("id", id, "name", t + id)));
      }
    }
    return db;
  }

  private CdcStream.Builder template(FakeCdcDatabase db) {
    return CdcStream.builder(spark).option("backend", "fake").option("fakePath", db.path().toString())
        .option("captureInstance", "ignored")
        .target(tmp.resolve("bronze_{ci}").toString()).appId("app_{ci}").checkpoint(tmp.resolve("ckpt/{ci}").toString())
        .factsTable(tmp.resolve("facts").toString());
  }

  @Test
  void startManyRunsEveryTableAndNamesQueriesAfterTheirAppIds() {
    FakeCdcDatabase db = threeTables();
    Map<String, StreamingQuery> qs = template(db).trigger("availableNow")
        .startMany(List.of("dbo_orders", "dbo_customers", "dbo_items"));
    assertThat(qs.keySet()).containsExactly("dbo_orders", "dbo_customers", "dbo_items");
    assertThat(CdcStreams.awaitAll(qs, 600)).isEmpty();
    for (String ci : qs.keySet()) {
      assertThat(qs.get(ci).name()).isEqualTo("app_" + ci);
      assertThat(spark.read().format("delta").load(tmp.resolve("bronze_" + ci).toString()).count()).isEqualTo(3);
    }
    assertThat(spark.read().format("delta").load(tmp.resolve("facts").toString()).where("event IS NULL")
        .select("app_id").distinct().count()).isEqualTo(3);
  }

  @Test
  void oneFailingStreamLeavesTheOthersRunning() throws Exception {
    FakeCdcDatabase db = threeTables();
    Map<String, StreamingQuery> qs = template(db).trigger("processingTime=200 milliseconds")
        .startMany(List.of("dbo_orders", "dbo_customers", "dbo_items"));
    try {
      qs.values().forEach(StreamingQuery::processAllAvailable);
      db.disableCdc("dbo_items");
      db.commit(tx -> tx.insert("orders", row("id", 4, "name", "orders4")));
      // The items stream plans the next batch (max_lsn moved), finds its instance gone, and fails.
      assertThatThrownBy(() -> qs.get("dbo_items").awaitTermination()).hasStackTraceContaining("dbo_items");
      assertThat(qs.get("dbo_orders").isActive()).isTrue();
      assertThat(qs.get("dbo_customers").isActive()).isTrue();
      qs.get("dbo_orders").processAllAvailable();
      assertThat(spark.read().format("delta").load(tmp.resolve("bronze_dbo_orders").toString()).count()).isEqualTo(4);
    } finally {
      CdcStreams.stopAll(qs);
    }
    Map<String, Throwable> failed = CdcStreams.awaitAll(qs, 60);
    assertThat(failed.keySet()).containsExactly("dbo_items");
  }

  @Test
  void templatesFollowPythonFormatRules() {
    assertThat(Templates.expand("t", "/lake/{ci}/{{raw}}", "dbo_x")).isEqualTo("/lake/dbo_x/{raw}");
    assertThatThrownBy(() -> Templates.check("target", "/lake/{table}")).hasMessageContaining("'{table}'");
    assertThatThrownBy(() -> Templates.check("appId", "app")).hasMessageContaining("appId='app' must contain '{ci}'");
    assertThatThrownBy(() -> Templates.check("target", "/lake/{ci")).hasMessageContaining("placeholder");
    assertThatThrownBy(() -> Templates.check("target", "/lake/}{ci}")).hasMessageContaining("placeholder '}'");
  }
}
