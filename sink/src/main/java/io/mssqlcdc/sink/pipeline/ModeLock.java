package io.mssqlcdc.sink.pipeline;

import static org.apache.spark.sql.functions.col;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.mssqlcdc.client.CdcClient;
import io.mssqlcdc.errors.SinkErrors;
import io.mssqlcdc.lsn.Lsn;
import io.mssqlcdc.sink.AppIds;
import io.mssqlcdc.sink.facts.FactsColumn;
import io.mssqlcdc.sink.facts.FactsReader;
import io.mssqlcdc.sink.tables.TableRef;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * "One snapshot mode per run" (reference-behaviour §12.8, ADR 0028 amendment): a target with a
 * snapshot of one mode ({@code full} or {@code chunked}) open takes no snapshot of the other mode
 * until it completes. A snapshot is open from its {@code snapshot_open} facts row until a
 * {@code bootstrap} or {@code resnapshot} row of the same stream family ({@code <app_id>} or
 * {@code <app_id>.g<n>}) and the same target has {@code max_lsn >= S}. A full open stops
 * counting once CDC cleanup passed its S (it can never complete) or when a chunked open exists
 * for its generation. Facts rows are matched on the exact {@code target} string.
 */
final class ModeLock {
  static final String FULL = "full";
  static final String CHUNKED = "chunked";
  private static final ObjectMapper JSON = new ObjectMapper();

  private ModeLock() {}

  /** An open snapshot row. */
  record Open(String appId, Lsn s, String mode, int generation) {}

  /**
   * Fails when {@code target} has an open snapshot of another mode than {@code mode}
   * ({@code null} = a seed, which any open snapshot blocks).
   */
  static void check(SparkSession spark, TableRef facts, String target, AppIds ids, String mode, CdcClient client,
      String captureInstance) {
    List<Open> open = openSnapshots(spark, facts, target, ids);
    Open worst = null;
    for (Open o : open) {
      if (mode != null && o.mode().equals(mode)) {
        continue;
      }
      if (o.mode().equals(FULL) && (purged(client, captureInstance, o.s())
          || open.stream().anyMatch(c -> c.mode().equals(CHUNKED) && c.appId().equals(o.appId())))) {
        continue;
      }
      if (worst == null || o.s().isAfter(worst.s())) {
        worst = o;
      }
    }
    if (worst != null) {
      String what = mode == null ? "seed() writes nothing over it" : "no " + mode + " snapshot is taken until it does";
      String how = worst.mode().equals(CHUNKED)
          ? "run backfill() until it is done, or rerun with snapshot=chunked"
          : "rerun with snapshot=full, which reads the table again";
      throw SinkErrors.snapshotModeLocked(target, worst.mode(), worst.s().hex(), worst.generation(), what, how);
    }
  }

  /** The snapshots of {@code ids}' family on {@code target} that no completion row has reached. */
  static List<Open> openSnapshots(SparkSession spark, TableRef facts, String target, AppIds ids) {
    List<Row> rows = FactsReader.events(spark, facts, target, SnapshotEvents.OPEN, SnapshotEvents.BOOTSTRAP,
            SnapshotEvents.RESNAPSHOT)
        .select(col(FactsColumn.APP_ID.column()), col(FactsColumn.EVENT.column()), col(FactsColumn.MAX_LSN.column()),
            col(FactsColumn.DETAIL.column()))
        .collectAsList();
    Lsn done = null;
    List<Row> opens = new ArrayList<>();
    for (Row r : rows) {
      if (!ids.isFamily(r.getString(0)) || r.isNullAt(2)) {
        continue;
      }
      if (SnapshotEvents.OPEN.equals(r.getString(1))) {
        opens.add(r);
      } else {
        Lsn l = Lsn.parse(r.getString(2));
        done = done == null || l.isAfter(done) ? l : done;
      }
    }
    List<Open> out = new ArrayList<>();
    for (Row r : opens) {
      Lsn s = Lsn.parse(r.getString(2));
      if (done != null && !s.isAfter(done)) {
        continue;
      }
      JsonNode d = detail(r.isNullAt(3) ? null : r.getString(3));
      String m = d.path("mode").asText(CHUNKED);
      out.add(new Open(r.getString(0), s, m.equals(FULL) ? FULL : CHUNKED, d.path("generation").asInt(0)));
    }
    return out;
  }

  private static boolean purged(CdcClient client, String ci, Lsn s) {
    return RetentionCheck.after(client, ci, s).isPresent();
  }

  private static JsonNode detail(String text) {
    if (text == null) {
      return JSON.createObjectNode();
    }
    try {
      JsonNode n = JSON.readTree(text);
      return n == null || !n.isObject() ? JSON.createObjectNode() : n;
    } catch (Exception e) {
      return JSON.createObjectNode();
    }
  }
}
