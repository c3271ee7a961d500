package io.mssqlcdc.testing;

/** Thrown by an armed {@link CrashPoint} (tests only): stands for the process dying there. */
public final class CrashPointException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final CrashPoint point;
  private final int hit;

  public CrashPointException(CrashPoint point, int hit) {
    super("simulated crash at " + point.id() + " (hit " + hit + ")");
    this.point = point;
    this.hit = hit;
  }

  public CrashPoint point() {
    return point;
  }

  public int hit() {
    return hit;
  }
}
