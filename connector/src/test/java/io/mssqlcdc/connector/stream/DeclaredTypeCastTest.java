package io.mssqlcdc.connector.stream;

import static io.mssqlcdc.fake.FakeRows.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.connector.SharedSpark;
import io.mssqlcdc.fake.FakeCdcDatabase;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Declared {@code columns} types that hold a value only rounded (reference §4.4, the safe cast):
 * the stream and the snapshot fail naming the column and the value, unless
 * {@code allowPrecisionLoss=true}; on the fake with real Spark.
 */
@Tag("spark")
class DeclaredTypeCastTest {
  private static final String COLUMNS = "order_id INT, qty INT, amount DECIMAL(18,1)";

  @TempDir
  Path dir;

  FakeCdcDatabase db;
  String ci;

  @BeforeEach
  void setUp() {
    db = FakeCdcDatabase.create(dir.resolve("db"));
    db.createTable("dbo", "orders", "order_id int", "qty decimal(9,2)", "amount decimal(18,2)").key("order_id");
    ci = db.enableCdc("dbo", "orders");
    db.commit(tx -> tx.insert("dbo.orders", row("order_id", 1, "qty", new BigDecimal("3.00"), "amount", new BigDecimal("1.20"))));
    db.commit(tx -> tx.insert("dbo.orders", row("order_id", 2, "qty", new BigDecimal("2.50"), "amount", new BigDecimal("1.25"))));
  }

  @AfterEach
  void tearDown() {
    db.close();
  }

  @Test
  void theStreamFailsNamingTheColumnAndTheValue() {
    Map<String, String> o = StreamRuns.options(db.path().toString(), ci, "columns", COLUMNS);
    assertThatThrownBy(() -> StreamRuns.availableNow(o, dir.resolve("cp")))
        .satisfies(e -> assertThat(StreamRuns.rootCause(e).getMessage())
            .startsWith("MSSQL_CDC-116: The value '2.50' of column 'qty' does not fit its declared type INT without"
                + " losing digits (it would become 2)")
            .contains("allowPrecisionLoss=true"));
  }

  @Test
  void theStreamRoundsWhenAllowed() {
    Map<String, String> o = StreamRuns.options(db.path().toString(), ci, "columns", COLUMNS, "allowPrecisionLoss", "true");
    List<Row> rows = StreamRuns.availableNow(o, dir.resolve("cp")).batches().stream()
        .flatMap(b -> b.rows().stream()).toList();
    assertThat(rows).extracting(r -> r.getAs("order_id") + " " + r.getAs("qty") + " " + r.getAs("amount"))
        .containsExactly("1 3 1.2", "2 2 1.3");
  }

  @Test
  void theSnapshotFailsTooAndRoundsWhenAllowed() {
    Map<String, String> o = StreamRuns.options(db.path().toString(), ci, "columns", COLUMNS);
    assertThatThrownBy(() -> SharedSpark.spark().read().format("mssql_cdc_snapshot").options(o).load().collectAsList())
        .satisfies(e -> assertThat(StreamRuns.rootCause(e).getMessage())
            .startsWith("MSSQL_CDC-116: The value '2.50' of column 'qty' does not fit its declared type INT"));
    o.put("allowPrecisionLoss", "true");
    List<Row> rows = SharedSpark.spark().read().format("mssql_cdc_snapshot").options(o).load().orderBy("order_id").collectAsList();
    assertThat(rows).extracting(r -> r.getAs("order_id") + " " + r.getAs("qty") + " " + r.getAs("amount"))
        .containsExactly("1 3 1.2", "2 2 1.3");
  }
}
