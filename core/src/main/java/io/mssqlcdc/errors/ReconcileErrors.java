package io.mssqlcdc.errors;

import java.util.List;

/**
 * The messages of reconcile ({@code Reconcile}, silver against SQL Server), one factory method per
 * condition. Where the Python reference's {@code reconcile} has a message for the same condition,
 * the text follows it with this library's argument names ({@code bucketRows}, {@code sample},
 * {@code keys}, {@code options}).
 */
public final class ReconcileErrors {
  private ReconcileErrors() {}

  /** An argument of {@code Reconcile} is missing or invalid. */
  public static CdcConfigException invalidArgument(String name, String given, String expected) {
    return new CdcConfigException(CdcErrorCode.INVALID_RECONCILE_ARGUMENT,
        name + " must be " + expected + ", not " + (given == null ? "null" : "'" + CdcErrors.printable(given) + "'")
            + ".");
  }

  /** Two arguments that cannot go together. */
  public static CdcConfigException conflict(String message) {
    return new CdcConfigException(CdcErrorCode.INVALID_RECONCILE_ARGUMENT, message);
  }

  /** No reader options: reconcile reads SQL Server through them. */
  public static CdcConfigException noOptions() {
    return new CdcConfigException(CdcErrorCode.RECONCILE_NO_OPTIONS,
        "pass options (the stream's reader options, with captureInstance): reconcile counts and reads the source"
            + " table through them.");
  }

  /** No keys given and the capture instance has no unique index. */
  public static CdcConfigException noUniqueIndex(String captureInstance) {
    return new CdcConfigException(CdcErrorCode.RECONCILE_NO_UNIQUE_INDEX,
        CdcErrors.printable(captureInstance) + " has no unique index to key rows by: pass keys (the columns that"
            + " identify a row of the source table, as silver is keyed).");
  }

  /** Keys that are not columns of the snapshot schema or of silver. */
  public static CdcConfigException keysNotColumns(List<String> missing, String where, List<String> columns) {
    return new CdcConfigException(CdcErrorCode.RECONCILE_KEYS_NOT_COLUMNS,
        "keys " + missing + " are not columns of " + where + ": " + columns + ". Pass the key silver is keyed by"
            + " (the source's key columns as the capture instance captures them).");
  }

  /** A table reconcile reads and never creates (silver, the control table, bronze) does not exist. */
  public static CdcConfigException tableMissing(String argument, String table, String what) {
    return new CdcConfigException(CdcErrorCode.RECONCILE_TABLE_MISSING,
        argument + " " + CdcErrors.printable(table) + " does not exist (or is not a Delta table): " + what);
  }

  /** Silver lacks the columns ApplyChanges writes. */
  public static CdcConfigException notASilverTable(String silver, List<String> missing) {
    return new CdcConfigException(CdcErrorCode.RECONCILE_NOT_A_SILVER_TABLE,
        silver + " is not a silver table written by ApplyChanges: it has no column(s) " + missing + ". Pass the"
            + " current-state table as silver (and the stream's target as bronze).");
  }
}
