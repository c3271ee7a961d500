package io.mssqlcdc.testing;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The test-only crash hook (issue 29): the library calls {@link #hit} at each {@link CrashPoint}; a
 * test arms one point and its n-th hit, and that hit runs the armed action (by default it throws
 * {@link CrashPointException}), once: the point disarms itself as it fires.
 *
 * <p>Zero cost when off: {@link #hit} reads one static volatile field, null unless a test armed a
 * point. Nothing in the library arms it.
 */
public final class CrashPoints {
  private CrashPoints() {}

  /** What an armed point does when it fires (may throw anything, checked exceptions too). */
  @FunctionalInterface
  public interface Action {
    void fire(CrashPoint point, int hit) throws Exception;
  }

  private static final class Armed {
    final CrashPoint point;
    final int nth;
    final Action action;
    final AtomicInteger hits = new AtomicInteger();

    Armed(CrashPoint point, int nth, Action action) {
      this.point = point;
      this.nth = nth;
      this.action = action;
    }
  }

  private static volatile Armed armed;
  private static volatile CrashPoint fired;

  /** Marks a crash point in the library's code: nothing unless a test armed {@code point}. */
  public static void hit(CrashPoint point) {
    Armed a = armed;
    if (a == null || a.point != point) {
      return;
    }
    fire(a);
  }

  private static void fire(Armed a) {
    int n = a.hits.incrementAndGet();
    if (n != a.nth) {
      return;
    }
    synchronized (CrashPoints.class) {
      if (armed != a) {
        return;
      }
      armed = null;
      fired = a.point;
    }
    try {
      a.action.fire(a.point, n);
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Exception e) {
      CrashPoints.<RuntimeException>rethrow(e);
    }
  }

  @SuppressWarnings("unchecked")
  private static <T extends Throwable> void rethrow(Throwable t) throws T {
    throw (T) t;
  }

  /** Arms {@code point}: its {@code nth} hit (1 = the first) throws {@link CrashPointException}. */
  public static void arm(CrashPoint point, int nth) {
    arm(point, nth, (p, hit) -> {
      throw new CrashPointException(p, hit);
    });
  }

  /** Arms {@code point}: its {@code nth} hit runs {@code action}. Replaces any point armed before. */
  public static synchronized void arm(CrashPoint point, int nth, Action action) {
    if (nth < 1) {
      throw new IllegalArgumentException("nth must be 1 or more, not " + nth);
    }
    fired = null;
    armed = new Armed(point, nth, action);
  }

  /** Disarms; returns the point that fired since the last {@link #arm}, or null if none did. */
  public static synchronized CrashPoint disarm() {
    armed = null;
    CrashPoint f = fired;
    fired = null;
    return f;
  }

  /** The point that fired since the last {@link #arm}, or null. */
  public static CrashPoint fired() {
    return fired;
  }
}
