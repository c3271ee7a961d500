package io.mssqlcdc.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs variants of the same work interleaved: after the warm-ups, each repetition runs every
 * variant once, in an order that rotates from one repetition to the next, so a change of the
 * machine's load during the run weighs on all of them alike. Ratios are then taken per
 * repetition ({@link Figure#compared}).
 */
public final class Comparison {
  private Comparison() {}

  /** One timed execution of a variant. */
  @FunctionalInterface
  public interface Variant {
    Sample run(int rep) throws Exception;
  }

  /**
   * What one execution did: its wall time, the units it processed (rows) and what it computed to
   * prove it did the work (the smoke test compares these across variants).
   */
  public record Sample(long nanos, long units, Map<String, Object> checks) {
    public double perSecond() {
      return units / (nanos / 1e9);
    }

    public double seconds() {
      return nanos / 1e9;
    }
  }

  /** The samples of each variant, measured repetitions only, in repetition order. */
  public static Map<String, List<Sample>> run(int warmups, int reps, Map<String, Variant> variants) {
    List<String> names = new ArrayList<>(variants.keySet());
    Map<String, List<Sample>> out = new LinkedHashMap<>();
    names.forEach(n -> out.put(n, new ArrayList<>()));
    for (int rep = 0; rep < warmups + reps; rep++) {
      for (int k = 0; k < names.size(); k++) {
        String n = names.get((k + rep) % names.size());
        Sample s;
        try {
          s = variants.get(n).run(rep);
        } catch (RuntimeException e) {
          throw e;
        } catch (Exception e) {
          throw new IllegalStateException(n + ": " + e.getMessage(), e);
        }
        if (rep >= warmups) {
          out.get(n).add(s);
        }
        Log.info("  %s rep %d%s: %.2f s, %,d units, %,.0f/s", n, rep, rep < warmups ? " (warm-up)" : "",
            s.seconds(), s.units(), s.perSecond());
      }
    }
    return out;
  }

  /** The per-repetition rates of {@code samples}. */
  public static List<Double> rates(List<Sample> samples) {
    return samples.stream().map(Sample::perSecond).toList();
  }

  /** Elapsed nanoseconds of {@code r}, with its result. */
  public static <T> Timed<T> time(ThrowingSupplier<T> r) throws Exception {
    long t0 = System.nanoTime();
    T v = r.get();
    return new Timed<>(System.nanoTime() - t0, v);
  }

  /** A value and how long it took. */
  public record Timed<T>(long nanos, T value) {}

  @FunctionalInterface
  public interface ThrowingSupplier<T> {
    T get() throws Exception;
  }
}
