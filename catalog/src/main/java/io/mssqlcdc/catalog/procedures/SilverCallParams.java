package io.mssqlcdc.catalog.procedures;

import io.mssqlcdc.silver.ApplyResult;
import io.mssqlcdc.silver.SilverCallBuilder;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.types.DataTypes;

/**
 * The parameters {@code apply_changes} and {@code apply_history} share (those of
 * {@link SilverCallBuilder}), their application to the builder, and the result row both return.
 */
final class SilverCallParams {
  private SilverCallParams() {}

  /**
   * The shared parameters, then {@code extra}, then {@code options}.
   *
   * @param target the target's parameter name ({@code silver}, {@code history})
   * @param targetDoc its documentation
   * @param owner whose position the control table keeps ("silver's", "the history's")
   * @param factsDoc the facts table's documentation
   */
  static List<Param> params(String target, String targetDoc, String owner, String factsDoc, List<Param> extra) {
    List<Param> out = new ArrayList<>(List.of(
        Param.table("the table bronze holds (its capture instance and the reader options for the keys)."),
        Param.required("bronze", DataTypes.StringType, "The bronze table, named exactly as `start_stream`'s `bronze`."),
        Param.required(target, DataTypes.StringType, targetDoc),
        Param.required("controlTable", DataTypes.StringType,
            "The control table: " + owner + " position and verdict are kept there; created when missing."),
        Param.optional("factsTable", DataTypes.StringType, "NULL", "none", factsDoc),
        Param.optional("keys", Param.STRING_LIST, "NULL", "the capture instance's unique index",
            "The key columns: `array('order_id')`."),
        Param.optional("granularity", DataTypes.StringType, "'hour'", "`'hour'`",
            "`minute`, `hour` or `day`: the period " + owner + " `finalized_until` counts in.")));
    out.addAll(extra);
    out.add(Param.options());
    return List.copyOf(out);
  }

  /** Sets the shared parameters of {@code a} on {@code b} ({@code target}: the target's parameter name). */
  static <B extends SilverCallBuilder<B>> B apply(B b, CatalogContext context, Args a, String target) {
    CatalogContext.ResolvedTable t = context.table(a.string("table"));
    b.bronze(a.string("bronze")).target(a.string(target)).captureInstance(t.captureInstance())
        .controlTable(a.string("controlTable")).options(context.options(t, a.map("options")))
        .granularity(a.string("granularity"));
    if (a.string("factsTable") != null) {
      b.factsTable(a.string("factsTable"));
    }
    if (a.strings("keys") != null) {
      b.keys(a.strings("keys"));
    }
    return b;
  }

  /** The call's one result row. */
  static List<Object[]> result(ApplyResult r) {
    return List.<Object[]>of(new Object[] {r.rebuilt(), r.appliedLsn().orElse(null),
        r.finalizedUntil().orElse(null), r.bronzeFound()});
  }
}
