package io.mssqlcdc.silver;

import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.get_json_object;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.max;
import static org.apache.spark.sql.functions.when;

import io.mssqlcdc.sink.facts.FactsColumn;
import io.mssqlcdc.sink.tables.DeltaTables;
import io.mssqlcdc.sink.tables.TableRef;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
 * <p>Only the stream generation that started at S can show that bronze holds the changes between S and the bound:
 * a later generation starts at a later snapshot, after changes it never read (a purge ended the one before). S's
 * generation is the app id of its {@code snapshot_open} row (the sink id the stream of that generation writes its
 * batch rows under, docs/decisions/0005).
 *
 * @param ends per app id, the greatest end offset of its micro-batch facts rows (no event) for bronze
 * @param highs per snapshot LSN, the greatest {@code max_lsn} of its {@code snapshot_chunk} facts rows
 * @param opens per snapshot LSN, the app ids of its {@code snapshot_open} rows
 */
record StreamProgress(Map<String, String> ends, Map<String, String> highs, Map<String, Set<String>> opens) {
  static final StreamProgress NONE = new StreamProgress(Map.of(), Map.of(), Map.of());

  private static final String BATCH = "b";
  private static final String CHUNK = "c";
  private static final String OPEN = "o";
  /** The app id of batch rows that carry none: of no generation known, counted as S's own (as before). */
  static final String UNKNOWN_APP = "";

  /** One read of the facts' batch, chunk and open rows for {@code bronze}. */
  static StreamProgress read(SparkSession spark, TableRef facts, String bronze) {
    Dataset<Row> all = DeltaTables.read(spark, facts);
    List<String> have = Arrays.asList(all.columns());
    if (!have.contains(FactsColumn.EVENT.column()) || !have.contains(FactsColumn.DETAIL.column())
        || !have.contains(FactsColumn.END_LSN.column())) {
      return NONE; // facts older than their migrations: no chunked snapshot there
    }
    Column event = col(FactsColumn.EVENT.column());
    Column chunk = event.equalTo(SnapshotFacts.SNAPSHOT_CHUNK);
    Column open = event.equalTo(SnapshotFacts.SNAPSHOT_OPEN);
    Column maxLsn = col(FactsColumn.MAX_LSN.column());
    Column appId = col(FactsColumn.APP_ID.column());
    List<Row> rows = all.where(col(FactsColumn.TARGET.column()).equalTo(bronze).and(event.isNull().or(chunk).or(open)))
        .select(when(event.isNull(), lit(BATCH)).when(chunk, lit(CHUNK)).otherwise(lit(OPEN)).as("kind"),
            when(chunk, get_json_object(col(FactsColumn.DETAIL.column()), "$.snapshot"))
                .when(open, maxLsn).as("s"),
            when(chunk, lit(null).cast("string")).otherwise(appId).as("app"),
            when(event.isNull(), coalesce(col(FactsColumn.END_LSN.column()), maxLsn)).otherwise(maxLsn).as("lsn"))
        .groupBy("kind", "s", "app").agg(max("lsn")).collectAsList();
    Map<String, String> ends = new HashMap<>();
    Map<String, String> highs = new HashMap<>();
    Map<String, Set<String>> opens = new HashMap<>();
    for (Row r : rows) {
      String s = r.isNullAt(1) ? null : r.getString(1);
      String app = r.isNullAt(2) ? null : r.getString(2);
      String lsn = r.isNullAt(3) ? null : r.getString(3);
      switch (r.getString(0)) {
        case BATCH -> {
          if (lsn != null) {
            ends.merge(app == null ? UNKNOWN_APP : app, lsn, Lsns::max);
          }
        }
        case CHUNK -> {
          if (s != null && lsn != null) {
            highs.merge(s, lsn, Lsns::max);
          }
        }
        default -> {
          if (s != null && app != null) {
            opens.computeIfAbsent(s, k -> new HashSet<>()).add(app);
          }
        }
      }
    }
    Map<String, Set<String>> frozen = new HashMap<>();
    opens.forEach((k, v) -> frozen.put(k, Set.copyOf(v)));
    return new StreamProgress(Map.copyOf(ends), Map.copyOf(highs), Map.copyOf(frozen));
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
   * reflect ({@link #bound}). Nothing to wait for when that is S itself (or unknown). Else the batches of S's own
   * generation (the app ids of its {@code snapshot_open} rows) must reach it, or bronze's verdict {@code verdictEnd}
   * (read before the pin) when no other generation's batches read past S: a later generation's progress, in the
   * facts or in the verdict, says nothing of the changes S's generation missed. Facts whose open rows name no app id
   * (none found for S) count every batch row, as before generations were told apart; batch rows without an app id
   * count as S's own.
   */
  boolean hasRead(String s, String stamp, String verdictEnd) {
    String need = bound(s, stamp);
    if (!Lsns.after(need, s)) {
      return true;
    }
    Set<String> own = opens.getOrDefault(s, Set.of());
    String ownEnd = null;
    boolean laterGeneration = false;
    for (Map.Entry<String, String> e : ends.entrySet()) {
      if (own.isEmpty() || own.contains(e.getKey()) || e.getKey().equals(UNKNOWN_APP)) {
        ownEnd = Lsns.max(ownEnd, e.getValue());
      } else if (Lsns.after(e.getValue(), s)) {
        laterGeneration = true;
      }
    }
    if (!Lsns.after(need, ownEnd)) {
      return true;
    }
    return !laterGeneration && !Lsns.after(need, verdictEnd);
  }
}
