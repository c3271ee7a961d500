package io.mssqlcdc.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Medians, extremes and percentiles of small samples. */
public final class Stats {
  private Stats() {}

  public static double median(double[] v) {
    return percentile(v, 50);
  }

  public static double median(List<Double> v) {
    return median(v.stream().mapToDouble(Double::doubleValue).toArray());
  }

  /** Nearest-rank percentile {@code p} (0-100) of {@code v}. */
  public static double percentile(double[] v, double p) {
    if (v.length == 0) {
      throw new IllegalArgumentException("no values");
    }
    double[] s = v.clone();
    Arrays.sort(s);
    if (p == 50 && s.length % 2 == 0) {
      return (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }
    int rank = (int) Math.ceil(p / 100.0 * s.length);
    return s[Math.max(0, Math.min(s.length - 1, rank - 1))];
  }

  public static double min(double[] v) {
    return Arrays.stream(v).min().orElseThrow();
  }

  public static double max(double[] v) {
    return Arrays.stream(v).max().orElseThrow();
  }

  public static List<Double> list(double[] v) {
    List<Double> l = new ArrayList<>(v.length);
    for (double d : v) {
      l.add(d);
    }
    return l;
  }
}
