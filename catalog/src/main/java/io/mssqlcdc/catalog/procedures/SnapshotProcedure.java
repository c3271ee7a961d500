package io.mssqlcdc.catalog.procedures;

import io.mssqlcdc.connector.CdcOffset;
import io.mssqlcdc.sink.pipeline.CdcStream;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;

/** {@code snapshot}: {@code CdcStream.builder(spark)...snapshot(bronze, resnapshot)}: a full snapshot into bronze. */
final class SnapshotProcedure extends CdcProcedure {
  SnapshotProcedure(CatalogContext context) {
    super(context);
  }

  @Override
  public String name() {
    return "snapshot";
  }

  @Override
  public String description() {
    return "Appends a full snapshot of the table to bronze (CdcStream.snapshot): unless resnapshot, the newest"
        + " snapshot bronze holds is returned and nothing is read.";
  }

  @Override
  List<Param> params() {
    return List.of(
        Param.table("the table to snapshot."),
        Param.required("bronze", DataTypes.StringType, "The bronze table (name or path)."),
        Param.optional("resnapshot", DataTypes.BooleanType, "false", "`false`",
            "Take a new snapshot even when bronze holds one."),
        Param.optional("appId", DataTypes.StringType, "NULL", "none",
            "The stream's app id: required with `factsTable` (the snapshot-mode lock)."),
        Param.optional("factsTable", DataTypes.StringType, "NULL", "none",
            "The stream's facts table: the `full` snapshot-mode lock applies."),
        Param.options());
  }

  @Override
  List<Column> columns() {
    return List.of(
        column("lsn", STRING, "The snapshot's stamp: the LSN its rows carry (`_snapshot`); a stream starting after"
            + " it misses nothing."),
        column("commit_ts", TIMESTAMP, "The commit time of the stamp; NULL when it is no commit's."));
  }

  @Override
  List<Object[]> run(SparkSession spark, Args a) {
    CatalogContext.ResolvedTable t = context.table(a.string("table"));
    CdcStream.Builder b = CdcStream.builder(spark).options(context.options(t, a.map("options")));
    if (a.string("appId") != null) {
      b.appId(a.string("appId"));
    }
    if (a.string("factsTable") != null) {
      b.factsTable(a.string("factsTable"));
    }
    CdcOffset o = b.snapshot(a.string("bronze"), Boolean.TRUE.equals(a.bool("resnapshot")));
    return List.<Object[]>of(new Object[] {o.lsn().hex(), o.commitTs().orElse(null)});
  }
}
