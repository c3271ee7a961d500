package io.mssqlcdc.connector.stream;

import static io.mssqlcdc.fake.FakeRows.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.mssqlcdc.errors.CdcErrors;
import io.mssqlcdc.fake.FakeCdcDatabase;
import io.mssqlcdc.lsn.Lsn;
import java.nio.file.Path;
import java.util.Map;
import org.apache.spark.sql.streaming.StreamingQueryException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link CdcErrors#isDataLoss} and {@link CdcErrors#isSchemaChanged} on what a failed query
 * really throws: the driver's error inside a {@code StreamingQueryException}, a task's inside a
 * {@code SparkException}, and their text alone (what crosses Py4J or Spark Connect).
 */
@Tag("spark")
class ErrorPredicatesStreamTest {
  @TempDir Path tmp;
  FakeCdcDatabase db;

  @BeforeEach
  void setUp() {
    db = FakeCdcDatabase.create(tmp.resolve("db"));
    db.createTable("dbo", "orders", "order_id int", "status varchar(20)").key("order_id");
    db.enableCdc("dbo", "orders");
  }

  private Map<String, String> options() {
    return StreamRuns.options(db.path().toString(), "dbo_orders");
  }

  private Lsn insert(int id) {
    return db.commit(tx -> tx.insert("orders", row("order_id", id, "status", "new")));
  }

  private static StreamingQueryException queryException(Throwable t) {
    Throwable c = t;
    while (c != null && !(c instanceof StreamingQueryException)) {
      c = c.getCause();
    }
    assertThat(c).as("the run failed with a StreamingQueryException").isNotNull();
    return (StreamingQueryException) c;
  }

  @Test
  void dataLossFoundByTheDriver() {
    insert(0);
    StreamRuns.availableNow(options(), tmp.resolve("c"));
    insert(1);
    db.cleanup("dbo_orders", insert(2));
    StreamingQueryException e = queryException(catchThrowable(() -> StreamRuns.availableNow(options(), tmp.resolve("c"))));
    assertThat(CdcErrors.isDataLoss(e)).isTrue();
    assertThat(CdcErrors.isSchemaChanged(e)).isFalse();
    assertThat(CdcErrors.isDataLoss(new RuntimeException(e.getMessage()))).as("its text alone").isTrue();
  }

  @Test
  void dataLossFoundByATask() {
    insert(0);
    Lsn l2 = insert(1);
    StreamingQueryException e = queryException(catchThrowable(() -> StreamRuns.availableNow(options(), tmp.resolve("c"),
        (df, id) -> db.cleanup("dbo_orders", l2.increment()))));
    assertThat(e.getCause()).as("a task failure reaches the query as a SparkException")
        .isInstanceOf(org.apache.spark.SparkException.class);
    assertThat(CdcErrors.isDataLoss(e)).isTrue();
    assertThat(CdcErrors.isDataLoss(new RuntimeException(e.getMessage()))).isTrue();
  }

  @Test
  void aSchemaChange() {
    insert(0);
    StreamRuns.availableNow(options(), tmp.resolve("c"));
    Runnable typeChangeAfterLoad = () -> {
      db.alterColumn("dbo.orders", "order_id", "bigint");
      insert(1);
    };
    StreamingQueryException e = queryException(catchThrowable(() -> StreamRuns.availableNow(options(), tmp.resolve("c"),
        (df, id) -> {}, typeChangeAfterLoad)));
    assertThat(CdcErrors.isSchemaChanged(e)).isTrue();
    assertThat(CdcErrors.isDataLoss(e)).isFalse();
    assertThat(CdcErrors.isSchemaChanged(new RuntimeException(e.getMessage()))).isTrue();
  }
}
