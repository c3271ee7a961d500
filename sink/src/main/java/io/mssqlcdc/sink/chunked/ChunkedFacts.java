package io.mssqlcdc.sink.chunked;

import static org.apache.spark.sql.functions.col;

import com.fasterxml.jackson.databind.JsonNode;
import io.mssqlcdc.lsn.Lsn;
import io.mssqlcdc.sink.AppIds;
import io.mssqlcdc.sink.facts.FactsColumn;
import io.mssqlcdc.sink.facts.FactsReader;
import io.mssqlcdc.sink.tables.TableRef;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * What the facts table says about a stream family's chunked snapshots on one target
 * (reference-behaviour §12.8-§12.10, §14.3): the {@code snapshot_open}, {@code snapshot_plan},
 * {@code snapshot_chunk} and completion rows. Rows are matched on the exact {@code target} string
 * and the family's app ids ({@code <app_id>}, {@code <app_id>.g<n>}); missing payload keys take the
 * reference's defaults ({@code mode} missing means chunked, chunk {@code last} missing false).
 */
public final class ChunkedFacts {
  public static final String OPEN = "snapshot_open";
  public static final String PLAN = "snapshot_plan";
  public static final String CHUNK = "snapshot_chunk";
  public static final String BOOTSTRAP = "bootstrap";
  public static final String RESNAPSHOT = "resnapshot";

  private final List<Row> rows;
  private final AppIds ids;

  private ChunkedFacts(List<Row> rows, AppIds ids) {
    this.rows = rows;
    this.ids = ids;
  }

  /** Reads the family's snapshot rows about {@code target}. */
  public static ChunkedFacts read(SparkSession spark, TableRef facts, String target, AppIds ids) {
    List<Row> rows = FactsReader.events(spark, facts, target, OPEN, PLAN, CHUNK, BOOTSTRAP, RESNAPSHOT)
        .select(col(FactsColumn.APP_ID.column()), col(FactsColumn.EVENT.column()), col(FactsColumn.ROWS.column()),
            col(FactsColumn.MIN_LSN.column()), col(FactsColumn.MAX_LSN.column()),
            col(FactsColumn.MIN_COMMIT_TS.column()), col(FactsColumn.LOST_FROM_TS.column()),
            col(FactsColumn.LOST_TO_TS.column()), col(FactsColumn.DETAIL.column()),
            col(FactsColumn.WRITTEN_AT.column()), col(FactsColumn.READ_SECONDS.column()),
            col(FactsColumn.DURATION_MS.column()))
        .collectAsList();
    List<Row> family = new ArrayList<>();
    for (Row r : rows) {
      if (ids.isFamily(r.getString(0))) {
        family.add(r);
      }
    }
    return new ChunkedFacts(family, ids);
  }

  /** The chunked opens, oldest S first. */
  public List<ChunkedOpen> chunkedOpens() {
    List<ChunkedOpen> out = new ArrayList<>();
    for (Row r : rows) {
      if (!OPEN.equals(r.getString(1)) || r.isNullAt(4)) {
        continue;
      }
      JsonNode d = PyJson.parse(r.isNullAt(8) ? null : r.getString(8));
      if ("full".equals(d.path("mode").asText("chunked"))) {
        continue;
      }
      int g = d.path("generation").asInt(generationOf(r.getString(0)));
      String kind = d.hasNonNull("kind") ? d.get("kind").asText() : g > 0 ? RESNAPSHOT : BOOTSTRAP;
      List<String> keys = new ArrayList<>();
      d.path("keys").forEach(k -> keys.add(k.asText()));
      out.add(new ChunkedOpen(r.getString(0), Lsn.parse(r.getString(4)), instant(r, 5), kind, g, keys,
          d.path("plan").isMissingNode() ? PyJson.object() : d.get("plan"), instant(r, 6), instant(r, 7),
          r.isNullAt(9) ? null : (LocalDateTime) r.get(9)));
    }
    out.sort((a, b) -> a.s().compareTo(b.s()));
    return out;
  }

  /** The newest chunked open (by S): it supersedes older ones. */
  public Optional<ChunkedOpen> newestOpen() {
    List<ChunkedOpen> o = chunkedOpens();
    return o.isEmpty() ? Optional.empty() : Optional.of(o.get(o.size() - 1));
  }

  /** The chunked open of generation {@code g} (its sink id's), if any. */
  public Optional<ChunkedOpen> openOf(int generation) {
    String sink = ids.sinkId(generation);
    return chunkedOpens().stream().filter(o -> o.appId().equals(sink)).reduce((a, b) -> b);
  }

  /** The largest {@code max_lsn} of a {@code bootstrap} or {@code resnapshot} row of the family. */
  public Optional<Lsn> newestCompletion() {
    Lsn best = null;
    for (Row r : rows) {
      String e = r.getString(1);
      if ((BOOTSTRAP.equals(e) || RESNAPSHOT.equals(e)) && !r.isNullAt(4)) {
        Lsn l = Lsn.parse(r.getString(4));
        best = best == null || l.isAfter(best) ? l : best;
      }
    }
    return Optional.ofNullable(best);
  }

  /** Whether a completion row has {@code max_lsn >= s}. */
  public boolean completed(Lsn s) {
    return newestCompletion().map(c -> !c.isBefore(s)).orElse(false);
  }

  /** The stored plan of snapshot {@code s}: the detail of its {@code snapshot_plan} row. */
  public Optional<JsonNode> plan(Lsn s) {
    JsonNode found = null;
    for (Row r : rows) {
      if (PLAN.equals(r.getString(1))) {
        JsonNode d = PyJson.parse(r.isNullAt(8) ? null : r.getString(8));
        if (s.hex().equals(d.path("snapshot").asText())) {
          found = d;
        }
      }
    }
    return Optional.ofNullable(found);
  }

  /**
   * A chunk already in: its wave, stamp, rows, whether it was the plan's last, and its facts row's
   * {@code duration_ms} (its wave's read and commit).
   */
  public record DoneChunk(int chunk, int wave, boolean last, Long rows, Lsn stamp, Lsn high, Double readSeconds,
      Long durationMs) {}

  /** The {@code snapshot_chunk} rows of snapshot {@code s}, by chunk (a chunk written twice: the later row). */
  public TreeMap<Integer, DoneChunk> chunks(Lsn s) {
    TreeMap<Integer, DoneChunk> out = new TreeMap<>();
    for (Row r : rows) {
      if (!CHUNK.equals(r.getString(1))) {
        continue;
      }
      JsonNode d = PyJson.parse(r.isNullAt(8) ? null : r.getString(8));
      if (!s.hex().equals(d.path("snapshot").asText())) {
        continue;
      }
      int c = d.path("chunk").asInt();
      out.put(c, new DoneChunk(c, d.path("wave").asInt(), d.path("last").asBoolean(false),
          r.isNullAt(2) ? null : r.getLong(2), r.isNullAt(3) ? null : Lsn.parse(r.getString(3)),
          r.isNullAt(4) ? null : Lsn.parse(r.getString(4)), r.isNullAt(10) ? null : r.getDouble(10),
          r.isNullAt(11) ? null : r.getLong(11)));
    }
    return out;
  }

  private int generationOf(String appId) {
    int i = appId.lastIndexOf(".g");
    if (i < 0 || !appId.startsWith(ids.base())) {
      return 0;
    }
    try {
      return Integer.parseInt(appId.substring(i + 2));
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  private static Instant instant(Row r, int i) {
    return r.isNullAt(i) ? null : ((LocalDateTime) r.get(i)).toInstant(ZoneOffset.UTC);
  }
}
