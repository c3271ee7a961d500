package io.mssqlcdc.connector;

import static io.mssqlcdc.fake.FakeRows.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.errors.CdcConfigException;
import io.mssqlcdc.fake.FakeCdcDatabase;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A bad {@code columns} value fails at {@code load()} of both readers with an
 * {@code MSSQL_CDC-100} message naming the option, the value and what is accepted (issue 8,
 * defect 9), never with Spark's raw parser error.
 */
@Tag("spark")
class ColumnsOptionTest {
  @TempDir Path tmp;
  FakeCdcDatabase db;

  @BeforeEach
  void setUp() {
    db = FakeCdcDatabase.create(tmp.resolve("db"));
    db.createTable("dbo", "orders", "order_id int", "status varchar(20)").key("order_id");
    db.enableCdc("dbo", "orders");
    db.commit(tx -> tx.insert("orders", row("order_id", 1, "status", "new")));
  }

  private Map<String, String> options(String columns) {
    Map<String, String> o = new LinkedHashMap<>();
    o.put("backend", "fake");
    o.put("fakePath", db.path().toString());
    o.put("captureInstance", "dbo_orders");
    o.put("columns", columns);
    return o;
  }

  private void loadStream(String columns) {
    SharedSpark.spark().readStream().format("mssql_cdc").options(options(columns)).load();
  }

  private void loadSnapshot(String columns) {
    SharedSpark.spark().read().format("mssql_cdc_snapshot").options(options(columns)).load();
  }

  @ParameterizedTest
  @ValueSource(strings = {"order_id INT,, status", "order_id INT status STRING", "order_id", "order_id INTT",
      "order_id INT, status STRING)"})
  void unparsableTextNamesTheOptionAndWhatIsAccepted(String columns) {
    for (Runnable load : new Runnable[] {() -> loadStream(columns), () -> loadSnapshot(columns)}) {
      assertThatThrownBy(load::run)
          .isInstanceOf(CdcConfigException.class)
          .hasMessageStartingWith("MSSQL_CDC-100: Option 'columns' must be a Spark DDL column list such as"
              + " 'order_id INT, status STRING', not '" + columns + "'.")
          .hasMessageContaining("Spark could not parse it");
    }
  }

  @Test
  void aColumnListedTwiceIgnoringCaseFails() {
    assertThatThrownBy(() -> loadStream("order_id INT, ORDER_ID BIGINT"))
        .isInstanceOf(CdcConfigException.class)
        .hasMessageContaining("Option 'columns' must be")
        .hasMessageContaining("'ORDER_ID' is listed twice (names match ignoring case, as SQL Server's do).");
  }

  @Test
  void aNestedTypeFailsNamingTheColumn() {
    assertThatThrownBy(() -> loadSnapshot("order_id INT, status STRUCT<a: INT>"))
        .isInstanceOf(CdcConfigException.class)
        .hasMessageContaining("Column 'status' is declared STRUCT<a: INT>, which this connector cannot fill: declare"
            + " it STRING, a numeric, boolean, date, timestamp or binary type in 'columns'.");
  }

  @Test
  void aGoodListStillLoads() {
    assertThat(SharedSpark.spark().read().format("mssql_cdc_snapshot").options(options("order_id BIGINT, status STRING"))
        .load().collectAsList()).hasSize(1);
  }
}
