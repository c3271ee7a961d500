package io.mssqlcdc.sink.facts;

import io.mssqlcdc.sink.tables.DeltaTables;
import io.mssqlcdc.sink.tables.TableRef;
import io.mssqlcdc.sink.tables.TableRunner;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Appends facts rows in one Delta commit. With a txn key ({@code txnAppId}, {@code txnVersion})
 * Delta skips the append when it has recorded that version (or a later one) for that app id: a
 * replayed batch or event writes nothing twice. Rows without {@code written_at} get the current
 * UTC time. The append does not merge schemas: a facts table with columns of a newer release takes
 * the row with those columns NULL.
 */
public final class FactsWriter {
  private FactsWriter() {}

  /** Creates or migrates the facts table. */
  public static void ensure(SparkSession spark, TableRef facts) {
    TableRunner.ensure(spark, facts, FactsTable.KIND, FactsTable.schema());
  }

  /**
   * Appends {@code rows} in one commit, idempotently under ({@code txnAppId}, {@code version})
   * when {@code txnAppId} is not null.
   */
  public static void write(SparkSession spark, TableRef facts, List<FactsRow> rows, String txnAppId, long version) {
    if (rows.isEmpty()) {
      return;
    }
    LocalDateTime now = LocalDateTime.now(ZoneOffset.UTC);
    List<Row> out = rows.stream().map(r -> {
      FactsRow c = r.copy();
      if (c.get(FactsColumn.WRITTEN_AT) == null) {
        c.set(FactsColumn.WRITTEN_AT, now);
      }
      return c.toRow();
    }).toList();
    Map<String, String> options = new HashMap<>();
    if (txnAppId != null) {
      options.put("txnAppId", txnAppId);
      options.put("txnVersion", Long.toString(version));
    }
    DeltaTables.append(spark.createDataFrame(out, FactsTable.schema()), facts, options);
  }
}
