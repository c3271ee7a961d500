package io.mssqlcdc.errors;

import java.util.List;

/**
 * The messages of the Delta sink, the library's tables and the pipeline ({@code CdcStream}), one
 * factory method per condition (the read side's are in {@link CdcErrors}). Where the Python
 * reference has a message for the same condition, the text follows it, so an operator who knows
 * one recognises the other.
 */
public final class SinkErrors {
  private SinkErrors() {}

  // ---- arguments ----------------------------------------------------------------------

  /** Two arguments of a builder that cannot go together; the message says why and what to do. */
  public static CdcConfigException conflict(String message) {
    return new CdcConfigException(CdcErrorCode.PIPELINE_ARGUMENTS_CONFLICT, message);
  }

  /** {@code <name>='<template>' must contain '{ci}': one per stream}. */
  public static CdcConfigException templateWithoutCi(String name, String template) {
    return new CdcConfigException(CdcErrorCode.INVALID_TEMPLATE,
        name + "='" + CdcErrors.printable(template) + "' must contain '{ci}': one per stream.");
  }

  /** A template with a placeholder other than {@code {ci}}. */
  public static CdcConfigException templatePlaceholder(String name, String template, String placeholder) {
    return new CdcConfigException(CdcErrorCode.INVALID_TEMPLATE,
        name + "='" + CdcErrors.printable(template) + "' holds the placeholder '" + CdcErrors.printable(placeholder)
            + "': only '{ci}' (the capture instance) is replaced. Write a literal brace as '{{' or '}}'.");
  }

  // ---- checkpoints and generations ----------------------------------------------------

  /**
   * The facts table holds a later batch of this sink id than the checkpoint starts at (the
   * checkpoint was deleted or rewound while the app id stayed).
   */
  public static CdcStateException checkpointRewound(String facts, long last, String sinkId, long batchId) {
    return new CdcStateException(CdcErrorCode.CHECKPOINT_REWOUND,
        facts + " holds batch " + last + " of app_id '" + sinkId + "', but this run's checkpoint starts at batch "
            + batchId + ": the checkpoint was deleted or rewound while app_id stayed the same, so Delta would skip"
            + " every write up to batch " + last + " as done already. Use a new app_id, or restore the checkpoint.");
  }

  /**
   * Delta skipped a steady batch's bronze append: bronze recorded this batch id under this sink id
   * though this run wrote the previous batch and no facts row of this one exists.
   */
  public static CdcStateException bronzeWrittenElsewhere(String target, String sinkId, long batchId) {
    return new CdcStateException(CdcErrorCode.BRONZE_WRITTEN_ELSEWHERE,
        target + " already holds batch " + batchId + " of app_id '" + sinkId + "' (Delta skipped the append as"
            + " written), but this run wrote batch " + (batchId - 1) + " and the facts table has no row of batch "
            + batchId + ": another query writes to " + target + " under the same app_id. Give each query its own"
            + " app_id (and checkpoint).");
  }

  /**
   * The facts commit of a batch, made in the background and tried again on the query's thread,
   * failed twice; bronze holds the batch.
   */
  public static CdcStateException factsCommitFailed(String facts, String sinkId, long first, long last,
      Throwable cause) {
    String what = first == last ? "The facts row of batch " + first : "The facts rows of batches " + first + " to " + last;
    String held = first == last ? "bronze holds the batch" : "bronze holds the batches";
    String rows = first == last ? "row" : "rows";
    return new CdcStateException(CdcErrorCode.FACTS_COMMIT_FAILED,
        what + " of app_id '" + sinkId + "' could not be appended to " + facts
            + " (twice; " + held + "): " + cause.getMessage() + ". Fix the cause (the table's storage,"
            + " its permissions) and restart the query on the same checkpoint: its first batch rebuilds the"
            + " missing " + rows + " from bronze.", cause);
  }

  /** The facts table holds batches of the sink, but the checkpoint shows no committed batch. */
  public static CdcStateException checkpointNotVisible(String facts, String sinkId, String checkpoint) {
    return new CdcStateException(CdcErrorCode.CHECKPOINT_NOT_VISIBLE,
        facts + " holds batches of " + sinkId + ", but the driver cannot see Spark's commits under " + checkpoint
            + ". Either the driver and Spark resolve that path differently (use a path both resolve to the same"
            + " directory), or the checkpoint was deleted: start it again with a new app_id.");
  }

  /** A file of Spark's checkpoint (offset log) that this release cannot read. */
  public static CdcStateException checkpointUnreadable(String file, String reason) {
    return new CdcStateException(CdcErrorCode.CHECKPOINT_UNREADABLE,
        "Cannot read " + file + " of the Spark checkpoint: " + reason + ". The onDataLoss=resnapshot pre-flight"
            + " reads Spark's offset log (version 'v1'); if the checkpoint was written by another Spark, start with"
            + " onDataLoss=fail once, or use a new checkpoint and app id.");
  }

  /** The generation state file is not JSON of the expected shape. */
  public static CdcStateException generationStateUnreadable(String file, String reason) {
    return new CdcStateException(CdcErrorCode.GENERATION_STATE_UNREADABLE,
        "Cannot read the stream's generation state " + file + ": " + reason + ". It is written by the"
            + " onDataLoss=resnapshot recovery and holds {\"generation\": n, \"snapshot_lsn\", \"commit_ts\", \"at\"};"
            + " restore it from a backup rather than delete it: without it the stream resumes generation 0's"
            + " checkpoint and app id.");
  }

  // ---- re-snapshots ---------------------------------------------------------------------

  /** A loss within {@code resnapshotIntervalDays} of the last automatic re-snapshot (or failed attempt). */
  public static CdcDataLossException resnapshotTooSoon(String lost, String last, double intervalDays) {
    return new CdcDataLossException(CdcErrorCode.RESNAPSHOT_TOO_SOON,
        lost + ", and the last automatic re-snapshot (or a failed one) was at " + last
            + ", less than resnapshotIntervalDays=" + intervalDays + " ago: a stream that loses changes again so"
            + " soon would re-snapshot in a loop. Find why it falls behind CDC retention (a stopped stream, a"
            + " retention shorter than a snapshot), then rerun with a smaller resnapshotIntervalDays to re-snapshot now.");
  }

  /** The re-snapshot's own stamp was purged before the stream could start from it. */
  public static CdcDataLossException resnapshotOutrunByCleanup(String lost, String lsn) {
    return new CdcDataLossException(CdcErrorCode.RESNAPSHOT_OUTRUN_BY_CLEANUP,
        lost + ". The re-snapshot at " + lsn + " took longer than the CDC retention: the changes after it are"
            + " purged too. Raise the retention (sys.sp_cdc_change_job @retention), or read the table next to the"
            + " stream with snapshot=chunked; then rerun with resnapshotIntervalDays=0.");
  }

  // ---- seed -----------------------------------------------------------------------------

  /** The copy lacks captured columns. */
  public static CdcConfigException seedMissingColumns(List<String> columns, String captureInstance) {
    return new CdcConfigException(CdcErrorCode.SEED_REFUSED, "The copy lacks captured columns [" + String.join(", ", columns)
        + "] of " + captureInstance + ": pass allowMissingColumns=true to seed them as NULL.");
  }

  /** The target already holds a snapshot that the seed would contradict. */
  public static CdcConfigException seedTargetHoldsSnapshot(String target, String ci, String existing, String lsn) {
    return new CdcConfigException(CdcErrorCode.SEED_REFUSED, target + " already holds a snapshot of " + ci + " at "
        + existing + ": seed an empty target, or with reseed=true a copy newer than it (not " + lsn + ").");
  }

  /** The seed's LSN is after {@code max_lsn}. */
  public static CdcConfigException seedAfterMaxLsn(String lsn) {
    return new CdcConfigException(CdcErrorCode.SEED_REFUSED, lsn + " is after sys.fn_cdc_get_max_lsn(): not recorded"
        + " yet. Pass the LSN (or time) recorded before the copy was taken.");
  }

  /** No mapping entry is as old as the copy. */
  public static CdcDataLossException seedNoCommitAtOrBefore(String ci, String asOf) {
    return new CdcDataLossException(CdcErrorCode.SEED_OLDER_THAN_CDC, ci + ": cdc.lsn_time_mapping holds no commit at"
        + " or before " + asOf + " UTC: the copy is older than what CDC holds. Seed from a newer copy.");
  }

  /** The changes after the seed's LSN are purged. */
  public static CdcDataLossException seedPurged(String ci, String lsn, String low) {
    return new CdcDataLossException(CdcErrorCode.SEED_OLDER_THAN_CDC, ci + ": CDC no longer holds the changes after "
        + lsn + " (min_lsn is " + low + "): the copy is older than the CDC retention. Seed from a newer copy.");
  }

  // ---- tables ---------------------------------------------------------------------------

  /** A bronze append the table's column types cannot take (Delta's DELTA_FAILED_TO_MERGE_FIELDS). */
  public static CdcSchemaChangedException tableCannotTakeType(String target, String detail, Throwable cause) {
    return new CdcSchemaChangedException(CdcErrorCode.TABLE_CANNOT_TAKE_TYPE,
        target + ": the type of a column changed on the source and the table cannot take the new one (" + detail
            + "). For a widening, run ALTER TABLE " + target + " SET TBLPROPERTIES ('delta.enableTypeWidening' ="
            + " 'true') and restart; otherwise write to a new table or rewrite this one.", cause);
  }

  /** New columns whose names Delta takes only with column mapping, on a table without it. */
  public static CdcSchemaChangedException columnMappingRequired(String target, List<String> columns) {
    return new CdcSchemaChangedException(CdcErrorCode.COLUMN_MAPPING_REQUIRED,
        target + ": column mapping is off on this table, and Delta takes the new column(s) '"
            + String.join("', '", columns) + "' only with it. Enable it, then run again: ALTER TABLE " + target
            + " SET TBLPROPERTIES ('delta.columnMapping.mode' = 'name', 'delta.minReaderVersion' = '2',"
            + " 'delta.minWriterVersion' = '5'). Readers of the table then need a Delta release that reads"
            + " column mapping.");
  }

  /** A table stamped by a newer release that requires it. */
  public static CdcStateException tableNeedsNewerRelease(String table, int needed, String kind, int known) {
    return new CdcStateException(CdcErrorCode.TABLE_NEEDS_NEWER_RELEASE,
        table + " needs a release that knows " + needed + " " + kind + " migrations (this one knows " + known
            + "). Upgrade mssql-cdc-spark rather than run an older one against it.");
  }

  /** A path or name that exists but is not a Delta table. */
  public static CdcStateException notDelta(String table) {
    return new CdcStateException(CdcErrorCode.TABLE_NOT_DELTA,
        table + " exists but is not a Delta table. The sink writes Delta tables only: name another table, or"
            + " convert this one (CONVERT TO DELTA).");
  }

  /** A snapshot of the other mode is open on the target (reference §12.8). */
  public static CdcStateException snapshotModeLocked(
      String target, String mode, String lsn, int generation, String what, String howToFinish) {
    return new CdcStateException(CdcErrorCode.SNAPSHOT_MODE_LOCKED,
        target + " has a " + mode + " snapshot open at " + lsn + " (generation " + generation
            + ") that has not completed: " + what + ". To finish it, " + howToFinish
            + ". Then either mode may be used.");
  }
}
