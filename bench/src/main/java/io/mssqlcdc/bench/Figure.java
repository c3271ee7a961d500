package io.mssqlcdc.bench;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One line of the results: a figure of a case, the baseline it is compared with, and the ratio
 * of the two measured in the same run (the median of the per-repetition ratios, with their
 * spread). What the bench computed to check both paths did the same work (row counts,
 * checksums) is kept in {@link #checks}; the smoke test asserts on it.
 *
 * @param caseId the case ({@code "1 source"})
 * @param name what is measured ({@code "narrow, 5 columns"})
 * @param metric unit of {@code value} and {@code baselineValue} ({@code "rows/s"})
 * @param value the median of the candidate's repetitions; null when pending
 * @param baseline what the candidate is compared with; null without one
 * @param baselineValue the median of the baseline's repetitions
 * @param ratio median over repetitions of candidate/baseline (for rates: candidate rate over baseline rate)
 * @param ratioMin smallest per-repetition ratio
 * @param ratioMax largest per-repetition ratio
 * @param reps repetitions measured
 * @param target the target, as text ({@code ">= 0.80"}); null without one
 * @param meetsTarget whether the median ratio (or value) meets it; null without a target
 * @param note how to read it, or why it is pending
 * @param details further figures (MB/s, per-repetition values, partitions)
 * @param checks what both paths computed, for the smoke test (rows, checksums)
 * @param status {@code measured} or {@code pending}
 */
public record Figure(
    String caseId, String name, String metric, Double value, String baseline, Double baselineValue,
    Double ratio, Double ratioMin, Double ratioMax, int reps, String target, Boolean meetsTarget, String note,
    Map<String, Object> details, Map<String, Object> checks, String status) {

  public static final String MEASURED = "measured";
  public static final String PENDING = "pending";

  /** A case that cannot run yet, and why. */
  public static Figure pending(String caseId, String name, String reason) {
    return new Figure(caseId, name, null, null, null, null, null, null, null, 0, null, null, reason, Map.of(),
        Map.of(), PENDING);
  }

  /** A figure with no baseline (a latency, a count). */
  public static Figure single(String caseId, String name, String metric, double value, List<Double> samples,
      String target, Boolean meets, String note, Map<String, Object> details, Map<String, Object> checks) {
    Map<String, Object> d = new LinkedHashMap<>(details);
    d.put("samples", samples);
    return new Figure(caseId, name, metric, value, null, null, null, null, null, samples.size(), target, meets, note,
        d, checks, MEASURED);
  }

  /**
   * A candidate against its baseline: per repetition {@code i}, ratio_i = candidate_i / baseline_i
   * (both rates, higher is better, or both sizes/times when {@code metric} says so).
   */
  public static Figure compared(String caseId, String name, String metric, List<Double> candidate, String baseline,
      List<Double> base, Double targetRatio, String note, Map<String, Object> details, Map<String, Object> checks) {
    return compared(caseId, name, metric, candidate, baseline, base, targetRatio, false, note, details, checks);
  }

  /**
   * As above; with {@code atMost} the target is a ceiling on the ratio (memory, latency: lower is
   * better) instead of a floor.
   */
  public static Figure compared(String caseId, String name, String metric, List<Double> candidate, String baseline,
      List<Double> base, Double targetRatio, boolean atMost, String note, Map<String, Object> details,
      Map<String, Object> checks) {
    if (candidate.size() != base.size() || candidate.isEmpty()) {
      throw new IllegalArgumentException("candidate and baseline need the same repetitions: " + candidate.size()
          + " and " + base.size());
    }
    double[] ratios = new double[candidate.size()];
    for (int i = 0; i < ratios.length; i++) {
      ratios[i] = candidate.get(i) / base.get(i);
    }
    double r = Stats.median(ratios);
    Map<String, Object> d = new LinkedHashMap<>(details);
    d.put("samples", candidate);
    d.put("baselineSamples", base);
    d.put("ratios", Stats.list(ratios));
    return new Figure(caseId, name, metric, Stats.median(candidate), baseline, Stats.median(base), r,
        Stats.min(ratios), Stats.max(ratios), ratios.length,
        targetRatio == null ? null : String.format(java.util.Locale.ROOT, "%s %.2f", atMost ? "<=" : ">=", targetRatio),
        targetRatio == null ? null : atMost ? r <= targetRatio : r >= targetRatio, note, d, checks, MEASURED);
  }

  /** This figure with {@code target} (as text) judged as {@code meets} (null: not judged at this size). */
  public Figure withTarget(String target, Boolean meets) {
    return new Figure(caseId, name, metric, value, baseline, baselineValue, ratio, ratioMin, ratioMax, reps, target,
        meets, note, details, checks, status);
  }

  /**
   * This figure with the Spark jobs per unit of work (per steady micro-batch, per call) of the
   * candidate and of the baseline, as text ({@code "4+1"}: 4 on the batch's path, 1 beside it;
   * null: not counted), kept in {@link #details} as {@code jobs} and {@code baselineJobs} and
   * printed in the table's jobs column.
   */
  public Figure withJobs(String candidate, String baselineJobs) {
    Map<String, Object> d = new LinkedHashMap<>(details);
    d.put("jobs", candidate);
    d.put("baselineJobs", baselineJobs);
    return new Figure(caseId, name, metric, value, baseline, baselineValue, ratio, ratioMin, ratioMax, reps, target,
        meetsTarget, note, d, checks, status);
  }

  /** The jobs column's text: candidate / baseline, or empty when neither was counted. */
  public String jobsText() {
    Object c = details.get("jobs");
    Object b = details.get("baselineJobs");
    if (c == null && b == null) {
      return "";
    }
    return (c == null ? "-" : c) + " / " + (b == null ? "-" : b);
  }
}
