package io.mssqlcdc.connector;

import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * How the facts table rounds its metric columns (verified/sink-and-pipeline.md §13): round trip
 * 1 decimal, seconds and lags 3, MB 6, hours 2; half-even on the double's exact binary value, as
 * Python's {@code round} does, so a figure rounds exactly as the reference rounded it.
 */
public final class FactsRounding {
  public static final int RTT_MS = 1;
  public static final int SECONDS = 3;
  public static final int MB = 6;
  public static final int HOURS = 2;

  private FactsRounding() {}

  /** {@code v} rounded to {@code digits} decimals (NaN and infinities unchanged). */
  public static double round(double v, int digits) {
    if (Double.isNaN(v) || Double.isInfinite(v)) {
      return v;
    }
    return new BigDecimal(v).setScale(digits, RoundingMode.HALF_EVEN).doubleValue();
  }
}
