package io.mssqlcdc.bench;

import java.util.List;

/** One case of the suite: runs its comparisons and returns their figures. */
public interface BenchCase {
  /** The name used in {@code cases=...}. */
  String name();

  List<Figure> run(BenchContext ctx) throws Exception;
}
