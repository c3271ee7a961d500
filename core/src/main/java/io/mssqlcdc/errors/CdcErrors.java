package io.mssqlcdc.errors;

import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * One factory method per error condition, so every message is written once, in one voice:
 * what happened, the values involved (LSNs in canonical hex, option names), what to do.
 */
public final class CdcErrors {
  private CdcErrors() {}

  // ---- configuration -------------------------------------------------------------------

  public static CdcConfigException invalidLsn(String input, String reason) {
    return new CdcConfigException(
        CdcErrorCode.INVALID_LSN,
        "Invalid LSN '" + input + "': " + reason + " (for example 0x0000002A000001F00003).");
  }

  /** {@code Option '<name>' must be <expected>, not '<value>'[. <hint>]}. */
  public static CdcConfigException invalidOption(String name, String value, String expected, String hint) {
    return new CdcConfigException(
        CdcErrorCode.INVALID_OPTION,
        "Option '" + name + "' must be " + expected + ", not '" + value + "'"
            + (hint == null || hint.isEmpty() ? "." : ". " + hint));
  }

  public static CdcConfigException missingOption(String name, String example) {
    return new CdcConfigException(
        CdcErrorCode.MISSING_OPTION,
        "Option '" + name + "' is required" + (example == null ? "." : " (e.g. " + example + ")."));
  }

  public static CdcConfigException unknownOption(String given, Optional<String> suggestion, Collection<String> known) {
    return new CdcConfigException(
        CdcErrorCode.UNKNOWN_OPTION,
        "Unknown option '" + given + "'"
            + suggestion.map(s -> ": did you mean '" + s + "'?").orElse(".")
            + " Known options: " + String.join(", ", known) + ".");
  }

  public static CdcConfigException invalidIdentifier(String kind, String value, String reason) {
    return new CdcConfigException(
        CdcErrorCode.INVALID_IDENTIFIER, "Invalid " + kind + " '" + printable(value) + "': " + reason + ".");
  }

  public static CdcConfigException unsupportedType(String captureInstance, String column, String sqlType) {
    return new CdcConfigException(
        CdcErrorCode.UNSUPPORTED_TYPE,
        captureInstance + "." + column + ": no default Spark type for SQL Server type '" + sqlType
            + "'. Pass 'columns' explicitly, leaving that column out (or declaring a type it casts to).");
  }

  public static CdcConfigException reservedColumns(List<String> names, List<String> reserved) {
    return new CdcConfigException(
        CdcErrorCode.RESERVED_COLUMN,
        "Source column(s) " + String.join(", ", names) + " take the name of a column the library adds ("
            + String.join(", ", reserved) + "): list 'columns' without them, or read a capture instance"
            + " that does not capture them.");
  }

  // ---- offsets -------------------------------------------------------------------------

  public static CdcStateException invalidOffset(String json, String reason) {
    return new CdcStateException(
        CdcErrorCode.INVALID_OFFSET,
        "Cannot read the offset " + json + " from the checkpoint: " + reason
            + ". Expected e.g. {\"lsn\": \"0x0000002A000001F00003\", \"commit_ts\": \"2026-09-28T14:03:12.117\"}.");
  }

  public static CdcStateException offsetMovedBackwards(String previous, String current) {
    return new CdcStateException(
        CdcErrorCode.OFFSET_MOVED_BACKWARDS,
        "The offset moved backwards, from " + previous + " to " + current
            + ". Offsets are commit LSNs and only move forward: is the query reading another database,"
            + " or a restored copy? Use a new checkpointLocation for another source.");
  }

  public static CdcStateException offsetOfAnotherSource(String checkpointSource, String configuredSource) {
    return new CdcStateException(
        CdcErrorCode.OFFSET_OF_ANOTHER_SOURCE,
        "The checkpoint's offsets belong to source '" + checkpointSource + "', but this query reads '"
            + configuredSource + "'. A checkpoint follows one table: use a new checkpointLocation for '"
            + configuredSource + "'.");
  }

  public static CdcStateException offsetVersionTooNew(int found, int supported) {
    return new CdcStateException(
        CdcErrorCode.OFFSET_VERSION_TOO_NEW,
        "The checkpoint's offset has format version " + found + ", but this release reads versions up to "
            + supported + ": it was written by a newer mssql-cdc-spark. Upgrade the library rather than"
            + " run an older one against it.");
  }

  // ---- data loss and schema ------------------------------------------------------------

  /**
   * {@code <ci>: change data from <from> is gone (min_lsn is now <min>): purged by CDC cleanup[,
   * or held only by capture instance '<gone>' ...]. ...}
   */
  public static CdcDataLossException dataLoss(String captureInstance, String from, String minLsn, List<String> goneInstances) {
    StringBuilder sb = new StringBuilder();
    sb.append(captureInstance).append(": change data from ").append(from)
        .append(" is gone (min_lsn is now ").append(minLsn).append("): purged by CDC cleanup");
    if (goneInstances != null && !goneInstances.isEmpty()) {
      sb.append(", or held only by capture instance(s) '").append(String.join("', '", goneInstances))
          .append("', disabled before the stream read them");
    }
    sb.append(". A re-snapshot is required. Set failOnDataLoss=false to skip ahead (loses changes).");
    return new CdcDataLossException(CdcErrorCode.DATA_LOSS, sb.toString());
  }

  public static CdcSchemaChangedException schemaChanged(String message) {
    return new CdcSchemaChangedException(CdcErrorCode.SCHEMA_CHANGED, message);
  }

  /** Any DDL inside a micro-batch with {@code schemaChangePolicy=fail}. */
  public static CdcSchemaChangedException ddlWithFailPolicy(String captureInstance, String ddlLsn, String command) {
    return schemaChanged(captureInstance + ": DDL at " + ddlLsn + " ('" + command + "') inside the batch, and"
        + " schemaChangePolicy=fail. Restart the query to re-infer the schema (and enable"
        + " delta.enableTypeWidening on bronze for a widening); the replayed batch holds the same DDL, so restart"
        + " with schemaChangePolicy=classify to go past it.");
  }

  /** A captured column's type changed inside the batch to one the query's type cannot hold. */
  public static CdcSchemaChangedException typeChangedInBatch(
      String captureInstance, List<String> columnsWithTypes, String ddl, boolean declared) {
    return schemaChanged(captureInstance + ": the type of captured column(s) " + String.join(", ", columnsWithTypes)
        + " changed inside the batch (" + ddl + "). Restart the query to "
        + (declared ? "update 'columns'" : "re-infer the schema")
        + " (and enable delta.enableTypeWidening on bronze for a widening). Nothing of this batch was read.");
  }

  /** The stream reaches a capture instance whose columns the running query's schema does not hold. */
  public static CdcSchemaChangedException newInstanceDoesNotFit(
      String captureInstance, String start, List<String> newColumns, List<String> otherTypes) {
    return schemaChanged("The stream reaches capture instance '" + captureInstance + "' of the table (from " + start
        + "), with new column(s) " + (newColumns.isEmpty() ? "none" : String.join(", ", newColumns))
        + "; other type(s) " + (otherTypes.isEmpty() ? "none" : String.join(", ", otherTypes))
        + ". Restart the query to re-infer the schema (and enable delta.enableTypeWidening on bronze for a"
        + " widening); it resumes there.");
  }

  /** The initial offset persisted under the checkpoint cannot be read. */
  public static CdcStateException invalidInitialOffset(String path, String reason) {
    return new CdcStateException(
        CdcErrorCode.INVALID_OFFSET,
        "Cannot read the stream's initial offset from " + path + ": " + reason + ". The file holds 'v1' and an"
            + " offset JSON line; delete it only if the checkpoint has no committed batch yet (the start is then"
            + " resolved again from 'startingLsn'), otherwise use a new checkpointLocation.");
  }

  // ---- capture instances ---------------------------------------------------------------

  public static CdcConfigException captureInstanceNotFound(String name, List<String> candidates) {
    StringBuilder sb = new StringBuilder();
    sb.append("Capture instance '").append(printable(name))
        .append("' not found, or the login lacks SELECT on its source columns (or membership in its gating role).");
    if (candidates != null && !candidates.isEmpty()) {
      sb.append(" Capture instances of what may be its table: ").append(String.join(", ", candidates))
          .append("; if '").append(printable(name)).append("' was disabled, set captureInstance to the newer one.");
    }
    return new CdcConfigException(CdcErrorCode.CAPTURE_INSTANCE_NOT_FOUND, sb.toString());
  }

  public static CdcConfigException captureInstanceAmbiguous(String name, List<String> matches) {
    return new CdcConfigException(
        CdcErrorCode.CAPTURE_INSTANCE_AMBIGUOUS,
        "Capture instance '" + printable(name) + "' matches '" + String.join("', '", matches)
            + "' ignoring case: pass the exact name.");
  }

  public static CdcConfigException captureInstanceNotReady(String name) {
    return new CdcConfigException(
        CdcErrorCode.CAPTURE_INSTANCE_NOT_FOUND,
        "Capture instance '" + printable(name) + "' not found, the login lacks permission to read it, or"
            + " capture has not processed its creation yet (sys.fn_cdc_get_min_lsn returned"
            + " 0x00000000000000000000). Check sys.sp_cdc_help_change_data_capture, and retry once the"
            + " capture job has run (is SQL Server Agent running?).");
  }

  public static CdcConfigException nothingCapturedYet(String captureInstance) {
    return new CdcConfigException(
        CdcErrorCode.NOTHING_CAPTURED_YET,
        captureInstance + ": capture has not written to this database yet (sys.fn_cdc_get_max_lsn() is"
            + " NULL) and the capture instance has no start LSN: retry once the capture job has run (is"
            + " SQL Server Agent running?).");
  }

  public static CdcConfigException columnsNotCaptured(List<String> instances, List<String> columns) {
    return new CdcConfigException(
        CdcErrorCode.COLUMN_NOT_CAPTURED,
        "No capture instance of the table (" + String.join(", ", instances) + ") captures "
            + String.join(", ", columns) + ": fix 'columns', or capture them with a new capture instance"
            + " (sql/switch_capture_instance.sql).");
  }

  // ---- permissions and preflight -------------------------------------------------------

  public static CdcPermissionException missingGrant(String what, String grant) {
    return new CdcPermissionException(
        CdcErrorCode.PERMISSION_DENIED,
        "The login cannot read " + what + ". Grant it: " + grant
            + " (each capture instance has its own change table and needs its own grant; see sql/permissions.sql).");
  }

  public static CdcStateException fakeState(String path, String reason) {
    return new CdcStateException(CdcErrorCode.FAKE_STATE, "Fake CDC database at " + path + ": " + reason);
  }

  /** Control characters shown as {@code \\uXXXX} so a message never carries them raw. */
  public static String printable(String s) {
    if (s == null) {
      return "null";
    }
    StringBuilder sb = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isISOControl(c)) {
        sb.append(String.format("\\u%04x", (int) c));
      } else {
        sb.append(c);
      }
    }
    return sb.toString();
  }
}
