package io.mssqlcdc.silver;

import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.get_json_object;
import static org.apache.spark.sql.functions.max;
import static org.apache.spark.sql.functions.when;

import io.mssqlcdc.sink.facts.FactsColumn;
import io.mssqlcdc.sink.tables.DeltaTables;
import io.mssqlcdc.sink.tables.TableRef;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * What the facts say, before bronze is pinned, about how far the stream has read and how far a chunked snapshot's
 * waves saw (docs/HISTORY.md, "Chunked snapshots"): the history applies a chunked snapshot S only once bronze holds
 * every change its chunk rows may reflect. A chunk row is its key's state at its wave's stamp or a little later (a
 * read under READ COMMITTED sees commits made while it runs, decision 0002), so the bound is the newest of the
 * waves' stamps (in bronze) and of the highs their {@code snapshot_chunk} facts rows record (the source's max LSN
 * after each read).
 *
 * @param streamEnd the greatest end offset of the stream's micro-batch facts rows (no event) for bronze; null when
 *     none
 * @param highs per snapshot LSN, the greatest {@code max_lsn} of its {@code snapshot_chunk} facts rows
 */
record StreamProgress(String streamEnd, Map<String, String> highs) {
  static final StreamProgress NONE = new StreamProgress(null, Map.of());

  /** One read of the facts' batch rows and chunk rows for {@code bronze}. */
  static StreamProgress read(SparkSession spark, TableRef facts, String bronze) {
    Dataset<Row> all = DeltaTables.read(spark, facts);
    List<String> have = Arrays.asList(all.columns());
    if (!have.contains(FactsColumn.EVENT.column()) || !have.contains(FactsColumn.DETAIL.column())
        || !have.contains(FactsColumn.END_LSN.column())) {
      return NONE; // facts older than their migrations: no chunked snapshot there
    }
    Column event = col(FactsColumn.EVENT.column());
    Column chunk = event.equalTo(SnapshotFacts.SNAPSHOT_CHUNK);
    List<Row> rows = all.where(col(FactsColumn.TARGET.column()).equalTo(bronze).and(event.isNull().or(chunk)))
        .select(when(chunk, get_json_object(col(FactsColumn.DETAIL.column()), "$.snapshot")).as("s"),
            when(event.isNull(), coalesce(col(FactsColumn.END_LSN.column()), col(FactsColumn.MAX_LSN.column())))
                .otherwise(col(FactsColumn.MAX_LSN.column())).as("lsn"))
        .groupBy("s").agg(max("lsn")).collectAsList();
    String end = null;
    Map<String, String> highs = new HashMap<>();
    for (Row r : rows) {
      String lsn = r.isNullAt(1) ? null : r.getString(1);
      if (r.isNullAt(0)) {
        end = Lsns.max(end, lsn);
      } else if (lsn != null) {
        highs.put(r.getString(0), lsn);
      }
    }
    return new StreamProgress(end, Map.copyOf(highs));
  }

  /**
   * What chunked snapshot {@code s}'s rows may reflect: the newest of {@code stamp} (its chunk rows' newest
   * {@code _start_lsn}; null when bronze holds none, the table was empty when the waves read it) and the highs of
   * its waves' {@code snapshot_chunk} facts rows (written for every chunk, an empty one too).
   */
  String bound(String s, String stamp) {
    return Lsns.max(stamp, highs.get(s));
  }

  /**
   * Whether bronze (pinned after this was read) holds every change up to what chunked snapshot {@code s}'s rows may
   * reflect ({@link #bound}). Nothing to wait for when that is S itself (or unknown); else bronze's verdict
   * {@code verdictEnd} (read before the pin) or the stream's end offset must reach it.
   */
  boolean hasRead(String s, String stamp, String verdictEnd) {
    String need = bound(s, stamp);
    if (!Lsns.after(need, s)) {
      return true;
    }
    return !Lsns.after(need, verdictEnd) || !Lsns.after(need, streamEnd);
  }
}
