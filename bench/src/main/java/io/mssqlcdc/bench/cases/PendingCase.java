package io.mssqlcdc.bench.cases;

import io.mssqlcdc.bench.BenchCase;
import io.mssqlcdc.bench.BenchContext;
import io.mssqlcdc.bench.Figure;
import java.util.List;

/** A case whose code under test does not exist yet: listed in the table as pending, with why. */
public final class PendingCase implements BenchCase {
  private final String name;
  private final String caseId;
  private final String figure;
  private final String reason;

  public PendingCase(String name, String caseId, String figure, String reason) {
    this.name = name;
    this.caseId = caseId;
    this.figure = figure;
    this.reason = reason;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public List<Figure> run(BenchContext ctx) {
    return List.of(Figure.pending(caseId, figure, reason));
  }
}
