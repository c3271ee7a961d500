package io.mssqlcdc.silver;

import io.mssqlcdc.errors.SilverErrors;
import java.util.ArrayList;
import java.util.List;

/**
 * Which captured columns open a new version when they change ({@code trackHistoryColumns} or
 * {@code exceptColumns} of {@code ApplyHistory}; every captured column by default). Names are matched
 * ignoring case, as keys are.
 */
final class TrackedColumns {
  private TrackedColumns() {}

  /** Fails when both lists are given (checked before anything is read). */
  static void checkOneOf(List<String> track, List<String> except) {
    if (track != null && except != null) {
      throw SilverErrors.conflict("pass trackHistoryColumns or exceptColumns, not both: one says which column"
          + " changes open a new version.");
    }
  }

  /**
   * The mask over {@code captured} (bronze's order).
   *
   * @param track the columns to track; null: all (but {@code except})
   * @param except the columns not to track; null: none
   * @throws io.mssqlcdc.errors.CdcConfigException when both are given, or one names no captured column
   */
  static boolean[] mask(List<String> captured, List<String> track, List<String> except) {
    checkOneOf(track, except);
    boolean[] mask = new boolean[captured.size()];
    java.util.Arrays.fill(mask, track == null);
    List<String> given = track != null ? track : except;
    String option = track != null ? "trackHistoryColumns" : "exceptColumns";
    if (given == null) {
      return mask;
    }
    List<String> unknown = new ArrayList<>();
    for (String name : given) {
      boolean found = false;
      for (int i = 0; i < captured.size(); i++) {
        if (captured.get(i).equalsIgnoreCase(name)) {
          mask[i] = track != null;
          found = true;
        }
      }
      if (!found) {
        unknown.add(name);
      }
    }
    if (!unknown.isEmpty()) {
      throw SilverErrors.invalidArgument(option, String.valueOf(given), "captured columns of bronze "
          + captured + " (unknown: " + unknown + ")");
    }
    return mask;
  }
}
