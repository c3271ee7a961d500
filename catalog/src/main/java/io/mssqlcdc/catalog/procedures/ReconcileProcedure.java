package io.mssqlcdc.catalog.procedures;

import io.mssqlcdc.reconcile.Reconcile;
import io.mssqlcdc.reconcile.ReconcileResult;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;

/** {@code reconcile}: {@code Reconcile.builder(spark)...run()}: silver against the SQL Server table. */
final class ReconcileProcedure extends CdcProcedure {
  ReconcileProcedure(CatalogContext context) {
    super(context);
  }

  @Override
  public String name() {
    return "reconcile";
  }

  @Override
  public String description() {
    return "Proves the silver table equals the SQL Server table (Reconcile.run): bucket counts and key sums, row by"
        + " row where they differ and in a sample, changes in flight told from real differences.";
  }

  @Override
  List<Param> params() {
    return List.of(
        Param.table("the source table silver mirrors."),
        Param.required("silver", DataTypes.StringType, "The silver table (name or path)."),
        Param.required("bronze", DataTypes.StringType, "The bronze table, named as the stream's target."),
        Param.required("controlTable", DataTypes.StringType, "The control table (silver's `applied_lsn`)."),
        Param.optional("keys", Param.STRING_LIST, "NULL", "the capture instance's unique index",
            "The key columns: `array('order_id')`."),
        Param.optional("factsTable", DataTypes.StringType, "NULL", "none",
            "The stream's facts table: a chunked snapshot's chunks are checked against it."),
        Param.optional("reportTable", DataTypes.StringType, "NULL", "none",
            "A Delta table the run's report rows are appended to."),
        Param.optional("bucketRows", DataTypes.LongType, "NULL", "`1000000`", "Rows per tier-1 bucket, about."),
        Param.optional("sample", DataTypes.DoubleType, "NULL", "`0.01`",
            "Fraction of matching buckets also compared row by row (0 to 1)."),
        Param.optional("seed", DataTypes.LongType, "NULL", "random", "Seed of the sample."),
        Param.options());
  }

  @Override
  List<Column> columns() {
    return List.of(
        column("run_id", STRING, "The run's UUID (the report rows' `run_id`)."),
        column("clean", BOOLEAN, "Whether silver was proved equal: no MISMATCH bucket, no failure but IN_FLIGHT."),
        column("silver_version", LONG, "The Delta version of silver compared."),
        column("silver_lsn", STRING, "Silver's `applied_lsn` at that version; NULL when none."),
        column("source_lsn", STRING, "SQL Server's `max_lsn` read before the counts."),
        column("buckets", INT, "Tier-1 buckets (a whole-table count is one)."),
        column("match", INT, "Buckets whose rows and key sums are equal."),
        column("in_flight", INT, "Buckets that differ while keys of them are in flight."),
        column("mismatch", INT, "Buckets that differ with nothing in flight."),
        column("hashed", INT, "Buckets (or key ranges) compared row by row."),
        column("failures", DataTypes.createMapType(DataTypes.StringType, DataTypes.LongType, false),
            "Key rows and chunk rows by failure type (`MISSING_TARGET`, ..., `CHUNK_STAMP`)."),
        column("summary", STRING, "One line for logs."));
  }

  @Override
  List<Object[]> run(SparkSession spark, Args a) {
    CatalogContext.ResolvedTable t = context.table(a.string("table"));
    Reconcile.Builder b = Reconcile.builder(spark).options(context.options(t, a.map("options")))
        .silver(a.string("silver")).bronze(a.string("bronze")).controlTable(a.string("controlTable"));
    if (a.strings("keys") != null) {
      b.keys(a.strings("keys"));
    }
    if (a.string("factsTable") != null) {
      b.factsTable(a.string("factsTable"));
    }
    if (a.string("reportTable") != null) {
      b.reportTable(a.string("reportTable"));
    }
    if (a.longValue("bucketRows") != null) {
      b.bucketRows(a.longValue("bucketRows"));
    }
    if (a.doubleValue("sample") != null) {
      b.sample(a.doubleValue("sample"));
    }
    if (a.longValue("seed") != null) {
      b.seed(a.longValue("seed"));
    }
    ReconcileResult r = b.run();
    return List.<Object[]>of(new Object[] {r.runId(), r.clean(), r.silverVersion(), r.silverLsn().orElse(null),
        r.sourceLsn(), r.buckets(), r.match(), r.inFlight(), r.mismatch(), r.hashed(), r.failures(), r.summary()});
  }
}
