package io.mssqlcdc.catalog.procedures;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.types.DataTypes;

/**
 * {@code start_stream}: {@code CdcStream.builder(spark)...toDelta()} for one table. Returns at
 * once with the started query's id, so any client manages it through {@code spark.streams}.
 */
final class StartStream extends CdcProcedure {
  StartStream(CatalogContext context) {
    super(context);
  }

  @Override
  public String name() {
    return "start_stream";
  }

  @Override
  public String description() {
    return "Starts the pipeline of one table (CdcStream.toDelta): its change stream into the bronze Delta table,"
        + " exactly once, with facts and finalization tracking when given. Returns the running query's id and name.";
  }

  @Override
  List<Param> params() {
    List<Param> p = new ArrayList<>(List.of(
        Param.table("the table to stream."),
        Param.required("bronze", DataTypes.StringType,
            "The bronze table (the builder's `target`): a name or a path (anything with `/` or `:`)."),
        Param.required("checkpoint", DataTypes.StringType, "The Spark checkpoint (generation n runs in"
            + " `<checkpoint>/_generations/<n>`)."),
        Param.required("appId", DataTypes.StringType,
            "The stream's identity, stable for the checkpoint's lifetime (a new checkpoint needs a new one).")));
    p.addAll(StreamArgs.optional());
    return p;
  }

  @Override
  List<Column> columns() {
    return List.of(
        column("query_id", STRING, "`StreamingQuery.id`: `spark.streams.get(query_id)` manages the query."),
        column("run_id", STRING, "`StreamingQuery.runId` of this start."),
        column("name", STRING, "The query's name."),
        column("table", STRING, "The source table, `schema.table`."),
        column("capture_instance", STRING, "The capture instance the stream reads."),
        column("bronze", STRING, "The bronze table, as given."));
  }

  @Override
  List<Object[]> run(SparkSession spark, Args a) {
    CatalogContext.ResolvedTable t = context.table(a.string("table"));
    StreamingQuery q = StreamArgs.builder(spark, a, context.options(t, a.map("options")))
        .target(a.string("bronze")).checkpoint(a.string("checkpoint")).appId(a.string("appId"))
        .toDelta();
    List<Object[]> rows = new ArrayList<>();
    rows.add(new Object[] {q.id().toString(), q.runId().toString(), q.name(), t.qualified(), t.captureInstance(),
        a.string("bronze")});
    return rows;
  }
}
