package io.mssqlcdc.reconcile;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The checks of a chunked snapshot (reference-behaviour §17 step 9, §33 W5 and O7): that the
 * {@code snapshot_chunk} facts rows of snapshot S tile the key space, that each chunk's facts rows
 * equal bronze's, and that no chunk is stamped below S. Plain logic over what the facts and bronze
 * hold.
 */
public final class ChunkChecks {
  private ChunkChecks() {}

  /** A {@code snapshot_chunk} facts row: its chunk index, bounds as JSON text (null: open), last flag, rows, stamp. */
  public record FactsChunk(int chunk, String lo, String hi, boolean last, Long rows, String stamp) {}

  /** Bronze's op-0 rows of snapshot S with one {@code _chunk}: how many, and the lowest {@code _start_lsn}. */
  public record BronzeChunk(int chunk, long rows, String minStartLsn) {}

  /** A problem found: its failure type, chunk, bounds (JSON text) and the detail's fields after snapshot and chunk. */
  public record Problem(String failureType, int chunk, String lo, String hi, Map<String, Object> detail) {}

  public static final String TILING = "CHUNK_TILING";
  public static final String ROWS = "CHUNK_ROWS";
  public static final String STAMP = "CHUNK_STAMP";

  /**
   * The problems of snapshot {@code s}, by chunk index.
   *
   * @param complete whether a {@code bootstrap}/{@code resnapshot} row completes exactly {@code s}
   */
  public static List<Problem> check(String s, List<FactsChunk> facts, List<BronzeChunk> bronze, boolean complete) {
    TreeMap<Integer, List<FactsChunk>> byIndex = new TreeMap<>();
    for (FactsChunk f : facts) {
      byIndex.computeIfAbsent(f.chunk(), i -> new ArrayList<>()).add(f);
    }
    Map<Integer, BronzeChunk> held = new TreeMap<>();
    for (BronzeChunk b : bronze) {
      held.put(b.chunk(), b);
    }
    List<Problem> out = new ArrayList<>();
    if (!byIndex.isEmpty()) {
      int top = byIndex.lastKey();
      FactsChunk previous = null;
      for (int i = 0; i <= top; i++) {
        List<FactsChunk> rows = byIndex.get(i);
        if (rows == null) {
          out.add(problem(TILING, i, null, null, "no 'snapshot_chunk' facts row"));
          previous = null;
          continue;
        }
        FactsChunk c = rows.get(0);
        if (rows.size() > 1) {
          out.add(problem(TILING, i, c.lo(), c.hi(), rows.size() + " 'snapshot_chunk' facts rows"));
        }
        if (i == 0 && c.lo() != null) {
          out.add(problem(TILING, i, c.lo(), c.hi(), "the first chunk is not open below"));
        }
        if (previous != null && previous.last()) {
          out.add(problem(TILING, i, c.lo(), c.hi(), "follows chunk " + (i - 1) + ", which is marked last"));
        } else if (previous != null && !Objects.equals(previous.hi(), c.lo())) {
          out.add(problem(TILING, i, c.lo(), c.hi(), "does not start where chunk " + (i - 1) + " ended ("
              + previous.hi() + ")"));
        }
        previous = c;
      }
      FactsChunk lastRow = byIndex.lastEntry().getValue().get(0);
      if (complete && !lastRow.last()) {
        out.add(problem(TILING, top, lastRow.lo(), lastRow.hi(), "the snapshot is complete but its last chunk is not"
            + " marked last"));
      }
    }
    for (Map.Entry<Integer, List<FactsChunk>> e : byIndex.entrySet()) {
      FactsChunk c = e.getValue().get(0);
      BronzeChunk b = held.get(e.getKey());
      long bronzeRows = b == null ? 0 : b.rows();
      if (c.rows() != null && c.rows() != bronzeRows) {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("facts_rows", c.rows());
        d.put("bronze_rows", bronzeRows);
        out.add(new Problem(ROWS, e.getKey(), c.lo(), c.hi(), d));
      }
      String stamp = min(c.stamp(), b == null ? null : b.minStartLsn());
      if (stamp != null && stamp.compareTo(s) < 0) {
        out.add(new Problem(STAMP, e.getKey(), c.lo(), c.hi(), Map.of("lsn", stamp)));
      }
    }
    if (complete) {
      for (BronzeChunk b : held.values()) {
        if (!byIndex.containsKey(b.chunk())) {
          Map<String, Object> d = new LinkedHashMap<>();
          d.put("facts_rows", null);
          d.put("bronze_rows", b.rows());
          out.add(new Problem(ROWS, b.chunk(), null, null, d));
        }
      }
    }
    out.sort(java.util.Comparator.comparingInt(Problem::chunk));
    return out;
  }

  /** The chunk indexes the problems name (for logs). */
  public static TreeSet<Integer> chunks(List<Problem> problems) {
    TreeSet<Integer> s = new TreeSet<>();
    problems.forEach(p -> s.add(p.chunk()));
    return s;
  }

  private static Problem problem(String type, int chunk, String lo, String hi, String what) {
    return new Problem(type, chunk, lo, hi, Map.of("problem", what));
  }

  private static String min(String a, String b) {
    if (a == null) {
      return b;
    }
    if (b == null) {
      return a;
    }
    return a.compareTo(b) <= 0 ? a : b;
  }
}
