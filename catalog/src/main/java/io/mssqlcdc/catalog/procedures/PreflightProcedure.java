package io.mssqlcdc.catalog.procedures;

import io.mssqlcdc.client.CdcClient;
import io.mssqlcdc.client.CdcClients;
import io.mssqlcdc.lsn.Lsn;
import io.mssqlcdc.options.CdcReaderOptions;
import java.util.List;
import org.apache.spark.sql.SparkSession;

/**
 * {@code preflight}: {@code CdcClient.preflight(captureInstance)}: whether the source is ready to
 * stream the table; a failure is raised with the check's code and the T-SQL that fixes it.
 */
final class PreflightProcedure extends CdcProcedure {
  PreflightProcedure(CatalogContext context) {
    super(context);
  }

  @Override
  public String name() {
    return "preflight";
  }

  @Override
  public String description() {
    return "Checks the source is ready to stream the table (CdcClient.preflight): CDC enabled, the capture instance"
        + " listed for the login, capture running. A failed check raises its error, naming the fix.";
  }

  @Override
  List<Param> params() {
    return List.of(Param.table("the table to check."), Param.options());
  }

  @Override
  List<Column> columns() {
    return List.of(
        column("table", STRING, "The source table, `schema.table`."),
        column("capture_instance", STRING, "The capture instance checked."),
        column("min_lsn", STRING, "The instance's low watermark."),
        column("max_lsn", STRING, "The database's newest LSN capture processed; NULL when none."));
  }

  @Override
  List<Object[]> run(SparkSession spark, Args a) {
    CatalogContext.ResolvedTable t = context.table(a.string("table"));
    CdcReaderOptions o = CdcReaderOptions.parse(context.options(t, a.map("options")), CdcReaderOptions.Reader.STREAM);
    try (CdcClient client = CdcClients.open(o)) {
      client.preflight(t.captureInstance());
      return List.<Object[]>of(new Object[] {t.qualified(), t.captureInstance(),
          client.minLsn(t.captureInstance()).hex(), client.maxLsn().map(Lsn::hex).orElse(null)});
    }
  }
}
