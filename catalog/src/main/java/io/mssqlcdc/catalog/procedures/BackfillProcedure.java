package io.mssqlcdc.catalog.procedures;

import io.mssqlcdc.sink.pipeline.Backfill;
import io.mssqlcdc.sink.pipeline.BackfillStatus;
import io.mssqlcdc.sink.pipeline.CdcStream;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;

/** {@code backfill}: {@code CdcStream.builder(spark)...backfill()...run()}: the next waves of a chunked snapshot. */
final class BackfillProcedure extends CdcProcedure {
  BackfillProcedure(CatalogContext context) {
    super(context);
  }

  @Override
  public String name() {
    return "backfill";
  }

  @Override
  public String description() {
    return "Reads the next waves of the table's open chunked snapshot into bronze (CdcStream.backfill().run()),"
        + " beside the running stream; call it again until state is done.";
  }

  @Override
  List<Param> params() {
    return List.of(
        Param.table("the table whose chunked snapshot to read."),
        Param.required("bronze", DataTypes.StringType, "The bronze table, as `start_stream`'s `bronze`."),
        Param.required("appId", DataTypes.StringType, "The stream's app id."),
        Param.required("factsTable", DataTypes.StringType,
            "The stream's facts table: its event rows hold the snapshot's plan and which chunks are in."),
        Param.optional("chunkRows", DataTypes.LongType, "NULL", "`1000000`",
            "Rows per chunk when the snapshot is first planned; ignored once planned."),
        Param.optional("maxWaves", DataTypes.IntegerType, "NULL", "none", "Stop after this many waves."),
        Param.optional("maxSeconds", DataTypes.DoubleType, "NULL", "none",
            "Take no new wave after this many seconds."),
        Param.optional("minHeadroomHours", DataTypes.DoubleType, "NULL", "none",
            "Take no wave while the stream's retention headroom is below this many hours."),
        Param.optional("isolation", DataTypes.StringType, "NULL", "the stream's `isolationLevel`",
            "`snapshot` or `readCommitted`."),
        Param.optional("targetWaveSeconds", DataTypes.DoubleType, "NULL", "`300`", "How long a wave should read."),
        Param.options());
  }

  @Override
  List<Column> columns() {
    return List.of(
        column("snapshot", STRING, "The chunked snapshot's LSN S; NULL when none is open."),
        column("chunks_done", LONG, "Chunks in bronze."),
        column("chunks_total", LONG, "Chunks of the plan; NULL until a call planned it."),
        column("done", BOOLEAN, "Whether the snapshot is complete."),
        column("paused", BOOLEAN, "Whether the call waits on something outside it (throttling, no snapshot)."),
        column("state", STRING, "`done`, `running`, `waiting_headroom`, `waiting_metrics` or `no_snapshot`."),
        column("reason", STRING, "Why it stopped, in words."));
  }

  @Override
  List<Object[]> run(SparkSession spark, Args a) {
    CatalogContext.ResolvedTable t = context.table(a.string("table"));
    CdcStream.Builder b = CdcStream.builder(spark).options(context.options(t, a.map("options")))
        .target(a.string("bronze")).appId(a.string("appId"));
    if (a.string("factsTable") != null) {
      b.factsTable(a.string("factsTable"));
    }
    Backfill bf = b.backfill();
    if (a.longValue("chunkRows") != null) {
      bf.chunkRows(a.longValue("chunkRows"));
    }
    if (a.intValue("maxWaves") != null) {
      bf.maxWaves(a.intValue("maxWaves"));
    }
    if (a.doubleValue("maxSeconds") != null) {
      bf.maxSeconds(a.doubleValue("maxSeconds"));
    }
    if (a.doubleValue("minHeadroomHours") != null) {
      bf.minHeadroomHours(a.doubleValue("minHeadroomHours"));
    }
    if (a.string("isolation") != null) {
      bf.isolation(a.string("isolation"));
    }
    if (a.doubleValue("targetWaveSeconds") != null) {
      bf.targetWaveSeconds(a.doubleValue("targetWaveSeconds"));
    }
    BackfillStatus s = bf.run();
    return List.<Object[]>of(new Object[] {s.snapshot(), s.chunksDone(), s.chunksTotal(), s.done(), s.paused(),
        s.state(), s.reason()});
  }
}
