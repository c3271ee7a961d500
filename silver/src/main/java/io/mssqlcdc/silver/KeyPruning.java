package io.mssqlcdc.silver;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.NumericType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;

/**
 * Which silver files a MERGE may skip (issue 10 item 6): a predicate on silver's key columns alone,
 * added to the MERGE condition, that every key of the MERGE's source satisfies. Delta's MERGE uses
 * such target-only conjuncts to skip files by their min/max statistics before it joins, so a call
 * that changed few keys reads the files that can hold them, not all of silver.
 *
 * <ul>
 *   <li>up to {@link #MAX_POINTS} distinct keys: one equality per key, ORed ({@code t.k = 5 OR
 *       t.k = 70123}); Delta checks each against each file's range (an {@code IN} list would be
 *       checked as one range from its smallest to its largest value);
 *   <li>more: per key column, the range of the batch's values ({@code t.k >= min AND t.k <= max});
 *       columns of types without an order are left out;
 *   <li>a rebuild prunes nothing: it deletes every silver key its source lacks, so it must see them
 *       all; neither does a call that applies snapshot waves (issue 14: the waves' range deletes read
 *       silver by chunk range themselves).
 * </ul>
 * A NULL key adds {@code t.k IS NULL} (Delta skips by null counts). Pruning never changes the
 * result: a key the predicate let through but the source lacks is left alone, as without it.
 */
final class KeyPruning {
  /** The most keys pruned by point; above, by range. */
  static final int MAX_POINTS = 256;

  /** The predicate planned. */
  sealed interface Plan permits None, Points, Ranges {}

  /** No pruning: why. */
  record None(String why) implements Plan {}

  /** The source's distinct keys: one tuple per key, values in key order (a value may be null). */
  record Points(List<String> keys, List<List<Object>> tuples) implements Plan {}

  /** Per key column the source's smallest and largest non-NULL value, and whether it holds a NULL. */
  record Ranges(List<Range> ranges) implements Plan {}

  /** One column's range; {@code min}/{@code max} null when the column holds only NULLs. */
  record Range(String column, Object min, Object max, boolean hasNull) {}

  private KeyPruning() {}

  /** Whether a key column of type {@code t} is pruned by range: types whose order Delta's statistics and Spark share. */
  static boolean rangeable(DataType t) {
    return t instanceof NumericType || t instanceof StringType || t instanceof DateType || t instanceof TimestampType
        || t instanceof TimestampNTZType || t instanceof BooleanType;
  }

  /**
   * Plans the predicate.
   *
   * @param rebuild whether the MERGE deletes the keys its source lacks
   * @param waves whether the call applies snapshot waves
   * @param keys the key columns
   * @param distinct the source's distinct keys when there are at most {@link #MAX_POINTS}; null when more
   * @param ranges per key column its range, for the columns whose type has an order (others absent)
   */
  static Plan plan(boolean rebuild, boolean waves, List<String> keys, List<List<Object>> distinct,
      List<Range> ranges) {
    if (rebuild) {
      return new None("a rebuild reads all of silver");
    }
    if (waves) {
      return new None("snapshot waves are applied");
    }
    if (distinct != null) {
      if (distinct.isEmpty()) {
        return new None("no key to apply");
      }
      return new Points(List.copyOf(keys), List.copyOf(distinct));
    }
    List<Range> usable = new ArrayList<>();
    for (Range r : ranges) {
      if (r.min() != null || r.hasNull()) {
        usable.add(r);
      }
    }
    if (usable.isEmpty()) {
      return new None("no key column with an order");
    }
    return new Ranges(List.copyOf(usable));
  }
}
