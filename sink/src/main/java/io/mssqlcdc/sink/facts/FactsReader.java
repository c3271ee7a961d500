package io.mssqlcdc.sink.facts;

import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.max;
import static org.apache.spark.sql.functions.when;

import io.mssqlcdc.sink.tables.DeltaTables;
import io.mssqlcdc.sink.tables.TableRef;
import java.util.List;
import java.util.OptionalLong;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/** Reads of the facts table the sink and the pipeline decide by. */
public final class FactsReader {
  private FactsReader() {}

  /** Every facts row; empty when the table does not exist. */
  public static Dataset<Row> rows(SparkSession spark, TableRef facts) {
    if (!DeltaTables.exists(spark, facts)) {
      return spark.createDataFrame(java.util.List.of(), FactsTable.schema());
    }
    return DeltaTables.read(spark, facts);
  }

  /**
   * The largest micro-batch id (event NULL) written under {@code sinkId}; empty when none. Read
   * as the first row of a descending order (one scan job; {@code max} would add a shuffle, a
   * second job with adaptive execution).
   */
  public static OptionalLong lastBatch(SparkSession spark, TableRef facts, String sinkId) {
    List<Row> r = rows(spark, facts)
        .where(col(FactsColumn.APP_ID.column()).equalTo(sinkId).and(col(FactsColumn.EVENT.column()).isNull())
            .and(col(FactsColumn.BATCH_ID.column()).isNotNull()))
        .select(col(FactsColumn.BATCH_ID.column()))
        .orderBy(col(FactsColumn.BATCH_ID.column()).desc())
        .limit(1)
        .collectAsList();
    return r.isEmpty() ? OptionalLong.empty() : OptionalLong.of(r.get(0).getLong(0));
  }

  /** Events that start a sink id's stream: their LSN ({@code min_lsn}) is the snapshot the stream starts after. */
  static final List<String> STREAM_STARTS = List.of("bootstrap", "resnapshot", "snapshot_open");

  /**
   * Where {@code sinkId}'s stream has read to, by its facts: the largest end of its micro-batches
   * ({@code end_lsn}, else {@code max_lsn}), or, before any batch had one, the snapshot its stream
   * starts after ({@code min_lsn} of a bootstrap, resnapshot or snapshot_open row). Every change a
   * later batch of that sink id holds is above it. Not the LSNs of other events: a backfill's
   * {@code snapshot_chunk} rows carry the sink id with the source's {@code max_lsn} read after the
   * chunk, which can be ahead of the stream. Null when no row names one.
   */
  public static String lastLsn(SparkSession spark, TableRef facts, String sinkId) {
    Column event = col(FactsColumn.EVENT.column());
    Row r = rows(spark, facts)
        .where(col(FactsColumn.APP_ID.column()).equalTo(sinkId))
        .agg(max(when(event.isNull(), coalesce(col(FactsColumn.END_LSN.column()), col(FactsColumn.MAX_LSN.column())))
            .when(event.isin(STREAM_STARTS.toArray()), col(FactsColumn.MIN_LSN.column()))))
        .first();
    return r.isNullAt(0) ? null : r.getString(0);
  }

  /** Rows of events {@code events} about {@code target} (matched exactly, as the reference does). */
  public static Dataset<Row> events(SparkSession spark, TableRef facts, String target, String... events) {
    return rows(spark, facts)
        .where(col(FactsColumn.TARGET.column()).equalTo(target)
            .and(col(FactsColumn.EVENT.column()).isin((Object[]) events)));
  }
}
