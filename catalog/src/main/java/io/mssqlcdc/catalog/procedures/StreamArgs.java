package io.mssqlcdc.catalog.procedures;

import io.mssqlcdc.finalization.Finalization;
import io.mssqlcdc.sink.pipeline.CdcStream;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;

/** The pipeline parameters {@code start_stream} and {@code start_many} share, and how they set a {@link CdcStream.Builder}. */
final class StreamArgs {
  private StreamArgs() {}

  static final String JAVA_DEFAULT = "NULL";

  /** After the required ones: the optional pipeline settings. */
  static List<Param> optional() {
    return List.of(
        Param.optional("factsTable", DataTypes.StringType, JAVA_DEFAULT, "none",
            "The facts table (name or path): one row per micro-batch and per event. Required by"
                + " `onDataLoss => 'resnapshot'` and `snapshot => 'chunked'`."),
        Param.optional("controlTable", DataTypes.StringType, JAVA_DEFAULT, "none",
            "The control table (name or path): the started query's tracking writes bronze's `finalized_until` there"
                + " after every batch (`Finalization.tracking`)."),
        Param.optional("granularity", DataTypes.StringType, "'hour'", "`'hour'`",
            "`minute`, `hour` or `day`: the period `finalized_until` counts in (with `controlTable`)."),
        Param.optional("trigger", DataTypes.StringType, JAVA_DEFAULT, "Spark's default",
            "`availableNow`, `once` or `processingTime=1 minute`."),
        Param.optional("queryName", DataTypes.StringType, JAVA_DEFAULT, "the sink id (`<appId>`)",
            "The query's name (`spark.streams` lists it)."),
        Param.optional("bootstrap", DataTypes.BooleanType, "false", "`false`",
            "Snapshot the table into bronze once and start the stream at the snapshot's stamp."),
        Param.optional("onDataLoss", DataTypes.StringType, "'fail'", "`'fail'`",
            "`fail` or `resnapshot`: what a start does when CDC no longer holds the changes after the checkpoint."),
        Param.optional("resnapshotIntervalDays", DataTypes.DoubleType, JAVA_DEFAULT, "`7`",
            "At most one automatic re-snapshot per this many days."),
        Param.optional("factsCommitIntervalSeconds", DataTypes.DoubleType, JAVA_DEFAULT, "`0`",
            "How often at most steady batches' facts rows are committed, in seconds (0: as soon as the last commit"
                + " ended)."),
        Param.optional("snapshotOnSwitch", DataTypes.BooleanType, "false", "`false`",
            "After the batch that first reads a newer capture instance, append a full snapshot."),
        Param.optional("snapshot", DataTypes.StringType, "'full'", "`'full'`",
            "How bootstrap and re-snapshots read the table: `full` or `chunked` (then `backfill`)."),
        Param.options());
  }

  /** The builder with every optional setting of {@code args} (the Java API checks each). */
  static CdcStream.Builder builder(SparkSession spark, Args a, Map<String, String> readerOptions) {
    CdcStream.Builder b = CdcStream.builder(spark).options(readerOptions)
        .bootstrap(Boolean.TRUE.equals(a.bool("bootstrap")))
        .snapshotOnSwitch(Boolean.TRUE.equals(a.bool("snapshotOnSwitch")))
        .onDataLoss(a.string("onDataLoss"))
        .snapshot(a.string("snapshot"));
    if (a.string("factsTable") != null) {
      b.factsTable(a.string("factsTable"));
    }
    if (a.string("trigger") != null) {
      b.trigger(a.string("trigger"));
    }
    if (a.string("queryName") != null) {
      b.queryName(a.string("queryName"));
    }
    if (a.doubleValue("resnapshotIntervalDays") != null) {
      b.resnapshotIntervalDays(a.doubleValue("resnapshotIntervalDays"));
    }
    if (a.doubleValue("factsCommitIntervalSeconds") != null) {
      b.factsCommitIntervalSeconds(a.doubleValue("factsCommitIntervalSeconds"));
    }
    if (a.string("controlTable") != null) {
      b.attach(TrackedStreams.registering(Finalization.tracking(a.string("controlTable"), a.string("granularity"))));
    }
    return b;
  }
}
