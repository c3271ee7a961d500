package io.mssqlcdc.connector;

import static io.mssqlcdc.fake.FakeRows.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.errors.CdcConfigException;
import io.mssqlcdc.errors.CdcSchemaChangedException;
import io.mssqlcdc.fake.FakeCdcDatabase;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.Trigger;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The captured columns {@code load()} infers from CDC metadata ({@link SchemaInference},
 * reference-behaviour §4.2, §4.3), on the fake through both readers: the union of the table's
 * instances by name, older first; a column typed differently takes the newer type when it holds
 * the older's values, else the load fails; computed columns left out; reserved names refused.
 */
@Tag("spark")
class InferredSchemaTest {
  @TempDir Path tmp;
  FakeCdcDatabase db;

  @BeforeEach
  void setUp() {
    db = FakeCdcDatabase.create(tmp.resolve("db"));
  }

  private Map<String, String> options(String ci, String... kv) {
    Map<String, String> o = new LinkedHashMap<>();
    o.put("backend", "fake");
    o.put("fakePath", db.path().toString());
    o.put("captureInstance", ci);
    for (int i = 0; i < kv.length; i += 2) {
      o.put(kv[i], kv[i + 1]);
    }
    return o;
  }

  private StructType streamSchema(Map<String, String> o) {
    return SharedSpark.spark().readStream().format("mssql_cdc").options(o).load().schema();
  }

  private StructType snapshotSchema(Map<String, String> o) {
    return SharedSpark.spark().read().format("mssql_cdc_snapshot").options(o).load().schema();
  }

  /** The captured columns of a schema: after the six metadata columns, without {@code _chunk}. */
  private static List<String> captured(StructType schema) {
    return Arrays.stream(schema.fields()).skip(6).filter(f -> !f.name().equals("_chunk"))
        .map(f -> f.name() + " " + f.dataType().sql()).toList();
  }

  @Test
  void theUnionOfTheInstancesOlderFirst() {
    db.createTable("dbo", "orders", "order_id int", "status varchar(20)").key("order_id");
    db.enableCdc("dbo", "orders");
    db.addColumn("dbo.orders", "note nvarchar(10)");
    db.enableCdc("dbo", "orders", "dbo_orders_v2", "order_id", "note");
    assertThat(captured(streamSchema(options("dbo_orders"))))
        .containsExactly("order_id INT", "status STRING", "note STRING");
    assertThat(captured(snapshotSchema(options("dbo_orders_v2"))))
        .as("from either instance's name").containsExactly("order_id INT", "status STRING", "note STRING");
  }

  /** A column dropped and added again wider: the newer instance's type, and the older's rows read into it. */
  @Test
  void aWiderTypeInTheNewerInstanceWins() {
    db.createTable("dbo", "orders", "order_id int", "amount int").key("order_id");
    db.enableCdc("dbo", "orders");
    db.commit(tx -> tx.insert("orders", row("order_id", 1, "amount", 7)));
    db.dropColumn("dbo.orders", "amount");
    db.addColumn("dbo.orders", "amount bigint");
    db.enableCdc("dbo", "orders", "dbo_orders_v2");
    db.commit(tx -> tx.insert("orders", row("order_id", 2, "amount", 5_000_000_000L)));

    assertThat(captured(streamSchema(options("dbo_orders")))).containsExactly("order_id INT", "amount BIGINT");
    List<Row> rows = readAll(options("dbo_orders"));
    assertThat(rows).extracting(r -> (Object) r.getAs("amount")).containsExactly(7L, 5_000_000_000L);
  }

  @Test
  void typesNoInstanceCanHoldFailTheLoadOfBothReaders() {
    db.createTable("dbo", "orders", "order_id int", "code varchar(10)").key("order_id");
    db.enableCdc("dbo", "orders");
    db.dropColumn("dbo.orders", "code");
    db.addColumn("dbo.orders", "code int");
    db.enableCdc("dbo", "orders", "dbo_orders_v2");
    String expected = "Capture instances 'dbo_orders' and 'dbo_orders_v2' of the same table capture 'code' as STRING"
        + " and INT, and the newer type does not hold the older's values. Pass 'columns' with a type that holds both,"
        + " or disable the older instance once the stream has read past 'dbo_orders_v2''s start (0x";
    assertThatThrownBy(() -> streamSchema(options("dbo_orders")))
        .isInstanceOf(CdcSchemaChangedException.class).hasMessageContaining(expected);
    assertThatThrownBy(() -> snapshotSchema(options("dbo_orders")))
        .isInstanceOf(CdcSchemaChangedException.class).hasMessageContaining(expected);
    assertThat(captured(streamSchema(options("dbo_orders", "columns", "order_id INT, code STRING"))))
        .as("declared columns settle it").containsExactly("order_id INT", "code STRING");
  }

  @Test
  void computedColumnsAreLeftOut() {
    db.createTable("dbo", "lines", "line_id int", "qty int", "total int computed").key("line_id");
    db.enableCdc("dbo", "lines");
    assertThat(captured(streamSchema(options("dbo_lines")))).containsExactly("line_id INT", "qty INT");
    assertThat(captured(snapshotSchema(options("dbo_lines")))).containsExactly("line_id INT", "qty INT");
  }

  @Test
  void sourceColumnsNamedLikeALibraryColumnFailTheLoadInAnyCase() {
    db.createTable("dbo", "odd", "id int", "_Operation int", "_batch_id int").key("id");
    db.enableCdc("dbo", "odd");
    assertThatThrownBy(() -> streamSchema(options("dbo_odd"))).isInstanceOf(CdcConfigException.class)
        .hasMessageStartingWith("MSSQL_CDC-110: Source column(s) _Operation, _batch_id take the name of a column the"
            + " library adds (_capture_instance, _start_lsn, _seqval, _operation, _command_id, _commit_ts, _batch_id,"
            + " _snapshot, _chunk): list 'columns' without them");
    assertThatThrownBy(() -> snapshotSchema(options("dbo_odd"))).isInstanceOf(CdcConfigException.class)
        .hasMessageContaining("Source column(s) _Operation, _batch_id take the name");
    assertThat(captured(streamSchema(options("dbo_odd", "columns", "id INT")))).containsExactly("id INT");
    assertThatThrownBy(() -> streamSchema(options("dbo_odd", "columns", "id INT, _COMMIT_TS STRING")))
        .isInstanceOf(CdcConfigException.class).hasMessageContaining("Source column(s) _COMMIT_TS take the name");
  }

  @Test
  void typesArePinnedForEachSqlServerType() {
    db.createTable("dbo", "t", "id bigint", "b bit", "d decimal(18,2)", "dt datetime2(3)", "day date", "bin varbinary(8)",
        "f float", "r real", "u uniqueidentifier").key("id");
    db.enableCdc("dbo", "t");
    StructType s = streamSchema(options("dbo_t"));
    assertThat(captured(s)).containsExactly("id BIGINT", "b BOOLEAN", "d DECIMAL(18,2)", "dt TIMESTAMP_NTZ", "day DATE",
        "bin BINARY", "f DOUBLE", "r FLOAT", "u STRING");
    assertThat(Arrays.stream(s.fields()).limit(6).map(StructField::name))
        .containsExactly("_capture_instance", "_start_lsn", "_seqval", "_operation", "_command_id", "_commit_ts");
  }

  private List<Row> readAll(Map<String, String> o) {
    java.util.List<Row> rows = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
    try {
      StreamingQuery q = SharedSpark.spark().readStream().format("mssql_cdc").options(o).load().writeStream()
          .foreachBatch((org.apache.spark.sql.Dataset<Row> b, Long id) -> rows.addAll(b.collectAsList()))
          .trigger(Trigger.AvailableNow()).option("checkpointLocation", tmp.resolve("ckpt").toString()).start();
      q.awaitTermination();
    } catch (Exception e) {
      throw new RuntimeException(e);
    }
    return rows;
  }
}
