package io.mssqlcdc.silver;

import io.mssqlcdc.connector.CdcColumns;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The MERGE of the latest image per key ({@code s}) into silver ({@code t}), as SQL text
 * (reference-behaviour §16 step 12):
 * <ul>
 *   <li>keys match null-safe ({@code <=>}): a unique index admits one NULL key;
 *   <li>matched, operation 1 or 3, newer: DELETE (a 3 that no 4 of its key outranks: the key moved);
 *   <li>matched, any other operation, newer: UPDATE every captured column and {@code _start_lsn},
 *       {@code _commit_ts};
 *   <li>not matched, not 1 or 3: INSERT;
 *   <li>on a rebuild only: not matched by the source: DELETE (keys absent from the snapshot and the
 *       changes after it).
 * </ul>
 * "Newer" is {@code s._start_lsn > t._start_lsn}: never an older image over a newer one, so a
 * replay after a crash changes nothing.
 */
final class MergeRules {
  static final String SOURCE = "s";
  static final String TARGET = "t";
  private static final String GONE = "s." + CdcColumns.OPERATION + " IN (1, 3)";
  private static final String NEWER = "s." + CdcColumns.START_LSN + " > t." + CdcColumns.START_LSN;

  private MergeRules() {}

  /** {@code t.`a` <=> s.`a` AND ...}. */
  static String keyMatch(List<String> keys) {
    return keys.stream().map(k -> "t." + quote(k) + " <=> s." + quote(k)).collect(Collectors.joining(" AND "));
  }

  /** The matched-delete condition. */
  static String deleteWhen() {
    return "(" + GONE + ") AND " + NEWER;
  }

  /** The matched-update condition. */
  static String updateWhen() {
    return "NOT (" + GONE + ") AND " + NEWER;
  }

  /** The not-matched-insert condition. */
  static String insertWhen() {
    return "NOT (" + GONE + ")";
  }

  /** Target column → source column for every column written ({@code `c`} → {@code s.`c`}). */
  static Map<String, String> assignments(List<String> columns) {
    Map<String, String> m = new LinkedHashMap<>();
    for (String c : columns) {
      m.put(quote(c), "s." + quote(c));
    }
    return m;
  }

  /** {@code `name`}, backticks doubled. */
  static String quote(String name) {
    return "`" + name.replace("`", "``") + "`";
  }
}
