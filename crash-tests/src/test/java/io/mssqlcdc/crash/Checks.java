package io.mssqlcdc.crash;

import io.mssqlcdc.lsn.Lsn;
import io.mssqlcdc.reconcile.ReconcileResult;
import io.mssqlcdc.sink.BronzeImages;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.functions;

/**
 * The end-of-case checks, each against the history's model (its own computation of change rows and
 * table states), never against what the library computes:
 *
 * <ul>
 *   <li>bronze holds one snapshot per generation, at the stamp its bootstrap or resnapshot event records, equal to
 *       the model's table there, and no other; and every change of each generation after its stamp (up to the next
 *       purge) exactly once (counted per change row: LSN, operation and row image);
 *   <li>facts hold one row per micro-batch id of the sink id, ids 0..n with none missing, whose
 *       counts add up to bronze's change rows, one bootstrap event, and one capture_instance_switched event when
 *       the history switched (none when it did not; at most one when a purge may have skipped past the switch);
 *   <li>silver equals the model's table and the fake's;
 *   <li>reconcile finds every bucket matching.
 * </ul>
 * (finalized_until is checked after each ApplyChanges call, in {@link CrashCase}.)
 */
final class Checks {
  private final Pipeline p;
  private final History h;
  private final boolean chunked;

  /** The generation whose snapshot the history's first call applied (where it starts), -1 when never called. */
  private final int historyGeneration;

  Checks(Pipeline p, History h, boolean chunked, int historyGeneration) {
    this.p = p;
    this.h = h;
    this.chunked = chunked;
    this.historyGeneration = historyGeneration;
  }

  /** The snapshots' stamps per generation, from their facts events ({@link #bronze}). */
  private final List<Lsn> stamps = new ArrayList<>();

  void all() {
    long changeRows = bronze();
    facts(changeRows);
    silver();
    if (historyGeneration >= 0) {
      history();
    }
    reconcile();
  }

  /**
   * The history (issue 31, docs/HISTORY.md) as of every commit from the stamp of the snapshot its first call applied
   * (the newest in bronze then; it starts there, as silver does) on equals the model's table
   * then: the versions with {@code __from_lsn <= L < __to_lsn} (or open), tombstones left out. Commits whose changes a
   * purge took (after the last the stream read, before the re-snapshot's stamp) are not checked: the history records
   * that gap (a version closed at the stamp), it cannot know what the table held in it.
   */
  private void history() {
    List<Row> rows = Pipeline.SPARK.read().format("delta").load(p.history).collectAsList();
    List<Lsn> purges = h.purgedAfter();
    List<Lsn> at = new ArrayList<>(stamps);
    Lsn start = stamps.get(historyGeneration);
    at.removeIf(l -> l.isBefore(start));
    h.commits().stream().map(History.Commit::lsn).filter(l -> !l.isBefore(start)).forEach(at::add);
    for (Lsn l : at) {
      boolean lost = false;
      for (int g = historyGeneration; g < purges.size(); g++) {
        lost |= l.isAfter(purges.get(g)) && l.isBefore(stamps.get(g + 1));
      }
      if (lost) {
        continue;
      }
      Map<String, Integer> expected = new TreeMap<>();
      h.tableAt(l).values().forEach(o -> expected.merge(image(o), 1, Integer::sum));
      Map<String, Integer> actual = new TreeMap<>();
      for (Row r : rows) {
        Lsn from = Lsn.parse(r.getAs("__from_lsn"));
        String to = r.getAs("__to_lsn");
        boolean deleted = Boolean.TRUE.equals(r.getAs("__is_deleted"));
        if (!from.isAfter(l) && (to == null || Lsn.parse(to).isAfter(l)) && !deleted) {
          actual.merge(image(r), 1, Integer::sum);
        }
      }
      compare("the history as of " + l.hex(), expected, actual);
    }
  }

  private static String image(History.Order o) {
    return o.id() + "|" + o.code() + "|" + o.status() + "|" + o.note();
  }

  /** A table's row as {@link #image(History.Order)} writes it; a table without the note column (no switch yet) NULL. */
  private static String image(Row r) {
    Object note = java.util.Arrays.asList(r.schema().fieldNames()).contains("note") ? r.getAs("note") : null;
    return r.getAs("order_id") + "|" + r.getAs("code") + "|" + r.getAs("status") + "|" + note;
  }

  /** Checks bronze; returns its number of change rows. */
  private long bronze() {
    List<Row> rows = Pipeline.SPARK.read().format("delta").load(p.bronze).collectAsList();
    Map<Lsn, Map<String, Integer>> snapshots = new TreeMap<>();
    Map<String, Integer> changes = new TreeMap<>();
    for (Row r : rows) {
      int op = r.getAs("_operation");
      if (op == 0) {
        snapshots.computeIfAbsent(Lsn.parse(r.getAs("_snapshot")), s -> new TreeMap<>()).merge(image(r), 1,
            Integer::sum);
      } else {
        String lsn = Lsn.parse(r.getAs("_start_lsn")).hex();
        changes.merge(lsn + " op" + op + " " + image(r), 1, Integer::sum);
      }
    }
    // One snapshot per generation: the bootstrap's, then one per purge (the re-snapshot after it). Their stamps come
    // from their facts events: a snapshot of an empty table leaves no row in bronze.
    List<Lsn> purges = h.purgedAfter();
    stamps.clear();
    for (int g = 0; g <= purges.size(); g++) {
      List<Row> events = Pipeline.SPARK.read().format("delta").load(p.facts)
          .where(functions.col("app_id").equalTo(g == 0 ? "orders" : "orders.g" + g)
              .and(functions.col("event").equalTo(g == 0 ? "bootstrap" : "resnapshot")))
          .collectAsList();
      if (events.size() != 1) {
        throw new AssertionError("facts hold " + events.size() + " snapshot events of generation " + g + ", not one");
      }
      stamps.add(Lsn.parse(events.get(0).getAs("max_lsn")));
    }
    Set<Lsn> stray = new TreeSet<>(snapshots.keySet());
    stray.removeAll(stamps);
    if (!stray.isEmpty()) {
      throw new AssertionError("bronze holds snapshot rows at " + stray.stream().map(Lsn::hex).toList()
          + ", which no bootstrap or resnapshot event records (the events' stamps: "
          + stamps.stream().map(Lsn::hex).toList() + "): a snapshot taken twice");
    }
    Map<String, Integer> expected = new TreeMap<>();
    long n = 0;
    for (int g = 0; g < stamps.size(); g++) {
      Lsn s = stamps.get(g);
      if (g > 0 && !s.isAfter(purges.get(g - 1))) {
        throw new AssertionError("generation " + g + "'s snapshot at " + s.hex() + " is not after the purged changes,"
            + " which follow " + purges.get(g - 1).hex());
      }
      if (chunked) {
        chunkedSnapshot(s, snapshots.getOrDefault(s, Map.of()));
      } else {
        Map<String, Integer> expectedSnapshot = new TreeMap<>();
        h.tableAt(s).values().forEach(o -> expectedSnapshot.merge(image(o), 1, Integer::sum));
        compare("bronze's snapshot of generation " + g + " at " + s.hex(), expectedSnapshot, snapshots.getOrDefault(s, Map.of()));
      }
      // Generation g holds the changes after its snapshot up to the last it could read before the next purge.
      Lsn end = g < purges.size() ? purges.get(g) : null;
      for (History.Commit c : h.commits()) {
        if (c.lsn().isAfter(s) && (end == null || !c.lsn().isAfter(end))) {
          for (History.Change ch : c.changes()) {
            expected.merge(c.lsn().hex() + " op" + ch.op() + " " + image(ch.row()), 1, Integer::sum);
            n++;
          }
        }
      }
    }
    compare("bronze's change rows (each generation's after its snapshot)", expected, changes);
    return n;
  }

  /**
   * A chunked snapshot at S: its chunks were read after S, beside the stream, so a row holds its key's state at S or
   * at a later commit (the stream's changes after S bring the rest); each key at most once (a chunk read again after a
   * crash must not add its rows twice); every chunk's facts row once, its rows those bronze holds for that chunk.
   * Keys it missed would show in silver, which is checked against the model.
   */
  private void chunkedSnapshot(Lsn s, Map<String, Integer> rows) {
    Map<Integer, java.util.Set<String>> states = new TreeMap<>();
    List<Lsn> at = new ArrayList<>(List.of(s));
    h.commits().stream().map(History.Commit::lsn).filter(l -> l.isAfter(s)).forEach(at::add);
    for (Lsn l : at) {
      h.tableAt(l).values().forEach(o -> states.computeIfAbsent(o.id(), k -> new TreeSet<>()).add(image(o)));
    }
    Map<Integer, Integer> perKey = new TreeMap<>();
    List<String> wrong = new ArrayList<>();
    rows.forEach((img, n) -> {
      int id = Integer.parseInt(img.substring(0, img.indexOf('|')));
      perKey.merge(id, n, Integer::sum);
      if (!states.getOrDefault(id, Set.of()).contains(img)) {
        wrong.add(img);
      }
    });
    perKey.values().removeIf(n -> n == 1);
    if (!perKey.isEmpty() || !wrong.isEmpty()) {
      throw new AssertionError("the chunked snapshot at " + s.hex() + ": keys read more than once " + perKey
          + "; rows no commit at or after S had " + wrong);
    }
    Map<Integer, Long> bronzeChunks = new TreeMap<>();
    for (Row r : Pipeline.SPARK.read().format("delta").load(p.bronze).where("_operation = 0")
        .groupBy("_snapshot", "_chunk").count().collectAsList().stream()
        .filter(r -> Lsn.parse(r.getString(0)).equals(s)).map(r -> org.apache.spark.sql.RowFactory.create(
            r.isNullAt(1) ? null : r.getInt(1), r.getLong(2))).toList()) {
      if (r.isNullAt(0)) {
        throw new AssertionError("the chunked snapshot holds " + r.getLong(1) + " rows without a chunk");
      }
      bronzeChunks.put(r.getInt(0), r.getLong(1));
    }
    Map<Integer, Long> factsChunks = new TreeMap<>();
    List<Integer> doubled = new ArrayList<>();
    for (Row r : Pipeline.SPARK.read().format("delta").load(p.facts).where("event = 'snapshot_chunk'").collectAsList()) {
      com.fasterxml.jackson.databind.JsonNode detail = io.mssqlcdc.sink.chunked.PyJson.parse(r.getAs("detail"));
      if (!detail.path("snapshot").isTextual() || !Lsn.parse(detail.path("snapshot").asText()).equals(s)) {
        continue;
      }
      int chunk = detail.path("chunk").asInt();
      if (factsChunks.put(chunk, r.getAs("rows")) != null) {
        doubled.add(chunk);
      }
    }
    List<Row> plans = Pipeline.SPARK.read().format("delta").load(p.facts).where("event = 'snapshot_plan'")
        .collectAsList().stream()
        .filter(r -> {
          com.fasterxml.jackson.databind.JsonNode d = io.mssqlcdc.sink.chunked.PyJson.parse(r.<String>getAs("detail"));
          return d.path("snapshot").isTextual() && Lsn.parse(d.path("snapshot").asText()).equals(s);
        })
        .toList();
    if (plans.size() != 1) {
      throw new AssertionError("facts hold " + plans.size() + " snapshot_plan rows of the snapshot at " + s.hex()
          + ", not one");
    }
    int planned = io.mssqlcdc.sink.chunked.PyJson.parse(plans.get(0).<String>getAs("detail")).path("chunks").size();
    if (!doubled.isEmpty() || factsChunks.size() != planned) {
      throw new AssertionError("facts: snapshot_chunk rows of chunks " + factsChunks.keySet() + " (doubled " + doubled
          + "), the plan has " + planned);
    }
    factsChunks.values().removeIf(v -> v == 0);
    if (!factsChunks.equals(bronzeChunks)) {
      throw new AssertionError("snapshot_chunk rows " + factsChunks + ", bronze's chunks " + bronzeChunks);
    }
  }

  /** Lists what {@code actual} lacks (lost) and holds too often or without cause (doubled or unexpected). */
  private static void compare(String what, Map<String, Integer> expected, Map<String, Integer> actual) {
    List<String> lost = new ArrayList<>();
    List<String> extra = new ArrayList<>();
    Set<String> keys = new TreeSet<>(expected.keySet());
    keys.addAll(actual.keySet());
    for (String k : keys) {
      int e = expected.getOrDefault(k, 0);
      int a = actual.getOrDefault(k, 0);
      if (a < e) {
        lost.add(k + " (x" + (e - a) + ")");
      } else if (a > e) {
        extra.add(k + " (x" + (a - e) + (e > 0 ? ", doubled" : ", unexpected") + ")");
      }
    }
    if (!lost.isEmpty() || !extra.isEmpty()) {
      throw new AssertionError(what + ": lost " + lost + "; doubled or unexpected " + extra);
    }
  }

  private void facts(long changeRows) {
    int generations = h.purgedAfter().size() + 1;
    long counted = 0;
    long switchEvents = 0;
    for (int g = 0; g < generations; g++) {
      String sinkId = g == 0 ? "orders" : "orders.g" + g;
      List<Row> rows = Pipeline.SPARK.read().format("delta").load(p.facts)
          .where(functions.col("app_id").equalTo(sinkId)).collectAsList();
      Map<Long, Integer> batches = new TreeMap<>();
      int snapshotEvents = 0;
      String snapshotEvent = g == 0 ? "bootstrap" : "resnapshot";
      for (Row r : rows) {
        String event = r.getAs("event");
        if (event == null) {
          long b = r.getAs("batch_id");
          batches.merge(b, 1, Integer::sum);
          Long n = r.getAs("rows");
          counted += n == null ? 0 : n;
        } else if (event.equals(snapshotEvent)) {
          snapshotEvents++;
        }
      }
      List<String> wrong = new ArrayList<>();
      long max = batches.keySet().stream().mapToLong(Long::longValue).max().orElse(-1);
      for (long b = 0; b <= max; b++) {
        int c = batches.getOrDefault(b, 0);
        if (c != 1) {
          wrong.add("batch " + b + ": " + c + " rows");
        }
      }
      if (!wrong.isEmpty()) {
        throw new AssertionError("facts of " + sinkId + ": not one row per batch id of 0.." + max + ": " + wrong);
      }
      if (snapshotEvents != 1) {
        throw new AssertionError("facts of " + sinkId + " hold " + snapshotEvents + " " + snapshotEvent
            + " events, not one");
      }
      switchEvents += rows.stream().filter(r -> "capture_instance_switched".equals(r.getAs("event"))).count();
    }
    // The batch that read the newer instance's first change records the switch once (a replay of it adds none); a
    // re-snapshot after the switch starts past it, and one before the stream read it may take its place.
    boolean purgedAfterSwitch = h.switched() && !h.purgedAfter().isEmpty();
    if (switchEvents > 1 || (h.switched() && !purgedAfterSwitch && switchEvents != 1)
        || (!h.switched() && switchEvents != 0)) {
      throw new AssertionError("facts hold " + switchEvents + " capture_instance_switched event(s); the history "
          + (h.switched() ? "switched once" + (purgedAfterSwitch ? " and purged" : "") : "never switched"));
    }
    if (counted != changeRows) {
      throw new AssertionError("the facts rows of " + generations + " generation(s) count " + counted
          + " change rows, bronze holds " + changeRows);
    }
  }

  private void silver() {
    Map<String, Integer> actual = new TreeMap<>();
    for (Row r : Pipeline.SPARK.read().format("delta").load(p.silver).collectAsList()) {
      actual.merge(image(r), 1, Integer::sum);
    }
    Map<String, Integer> model = new TreeMap<>();
    h.table().values().forEach(o -> model.merge(image(o), 1, Integer::sum));
    compare("silver against the model's table", model, actual);
    Map<String, Integer> fake = new TreeMap<>();
    BronzeImages.table(p.db, "dbo", History.TABLE, "order_id",
            h.switched() ? List.of("code", "status", "note") : List.of("code", "status"))
        .forEach((k, v) -> fake.merge(k + "|" + v.get(0) + "|" + v.get(1) + "|" + (v.size() > 2 ? v.get(2) : null), 1,
            Integer::sum));
    compare("the model's table against the fake's", fake, model);
  }

  private void reconcile() {
    ReconcileResult r = p.reconcile().run();
    if (!r.clean() || r.mismatch() != 0 || r.match() != r.buckets()) {
      throw new AssertionError("reconcile: " + r.summary());
    }
  }
}
