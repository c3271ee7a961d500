package io.mssqlcdc.catalog.procedures;

import io.mssqlcdc.errors.CatalogErrors;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.types.DataTypes;

/**
 * {@code start_many}: {@code CdcStream.builder(spark)...startMany(instances)}: one stream per
 * table, {@code bronze}, {@code appId} and {@code checkpoint} (and {@code queryName}) templates
 * with {@code {ci}}. If a start fails, the ones started are stopped and the error is raised.
 */
final class StartMany extends CdcProcedure {
  StartMany(CatalogContext context) {
    super(context);
  }

  @Override
  public String name() {
    return "start_many";
  }

  @Override
  public String description() {
    return "Starts one pipeline per table (CdcStream.startMany), the names templates with {ci} (the table's capture"
        + " instance). One row per started query, in the order given.";
  }

  @Override
  List<Param> params() {
    List<Param> p = new ArrayList<>(List.of(
        Param.required("tables", Param.STRING_LIST,
            "The source tables, each `schema.table` as `SHOW TABLES` lists it: `array('dbo.orders', 'dbo.lines')`."),
        Param.required("bronze", DataTypes.StringType, "The bronze table template, with `{ci}`: `'bronze.{ci}'`."),
        Param.required("checkpoint", DataTypes.StringType, "The checkpoint template, with `{ci}`: `'/chk/{ci}'`."),
        Param.required("appId", DataTypes.StringType, "The app id template, with `{ci}`: `'{ci}-bronze'`.")));
    p.addAll(StreamArgs.optional());
    return p;
  }

  @Override
  List<Column> columns() {
    return List.of(
        column("table", STRING, "The source table, `schema.table`."),
        column("capture_instance", STRING, "The capture instance its stream reads (what `{ci}` became)."),
        column("query_id", STRING, "`StreamingQuery.id`: `spark.streams.get(query_id)` manages the query."),
        column("run_id", STRING, "`StreamingQuery.runId` of this start."),
        column("name", STRING, "The query's name."));
  }

  @Override
  List<Object[]> run(SparkSession spark, Args a) {
    List<String> tables = a.strings("tables");
    if (tables == null || tables.isEmpty()) {
      throw CatalogErrors.invalidArgument(name(), "tables", tables == null ? null : "[]",
          "a non-empty array of tables, e.g. array('dbo.orders')");
    }
    Map<String, String> tableOf = new LinkedHashMap<>();
    for (String table : tables) {
      CatalogContext.ResolvedTable t = context.table(table);
      tableOf.put(t.captureInstance(), t.qualified());
    }
    String first = tableOf.keySet().iterator().next();
    Map<String, StreamingQuery> started = StreamArgs.builder(spark, a,
            context.readerOptions().apply(first, a.map("options")))
        .target(a.string("bronze")).checkpoint(a.string("checkpoint")).appId(a.string("appId"))
        .startMany(new ArrayList<>(tableOf.keySet()));
    List<Object[]> rows = new ArrayList<>();
    for (Map.Entry<String, StreamingQuery> e : started.entrySet()) {
      StreamingQuery q = e.getValue();
      rows.add(new Object[] {tableOf.get(e.getKey()), e.getKey(), q.id().toString(), q.runId().toString(),
          q.name()});
    }
    return rows;
  }
}
