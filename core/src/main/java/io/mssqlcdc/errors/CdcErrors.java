package io.mssqlcdc.errors;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One factory method per error condition, so every message is written once, in one voice:
 * what happened, the values involved (LSNs in canonical hex, option names), what to do.
 */
public final class CdcErrors {
  private CdcErrors() {}

  // ---- recognising our errors behind Spark's wrapping -----------------------------------

  private static final Pattern TAG = Pattern.compile("MSSQL_CDC-(\\d{3})(?!\\d)");

  /**
   * Whether {@code t} is, or was caused by, a {@link CdcDataLossException} (codes
   * {@code MSSQL_CDC-2xx}): changes the stream needed are gone. Sees through Spark's wrapping
   * (a {@code StreamingQueryException}, a {@code SparkException} whose cause is the task's
   * exception, suppressed exceptions) and through boundaries that keep only the text: an
   * exception from Py4J or Spark Connect whose message carries the {@code MSSQL_CDC-2xx} tag.
   */
  public static boolean isDataLoss(Throwable t) {
    return hasFamily(t, CdcDataLossException.class, 2);
  }

  /**
   * Whether {@code t} is, or was caused by, a {@link CdcSchemaChangedException} (codes
   * {@code MSSQL_CDC-3xx}): the source's schema changed in a way the query must be restarted
   * for. Sees through wrapping as {@link #isDataLoss} does.
   */
  public static boolean isSchemaChanged(Throwable t) {
    return hasFamily(t, CdcSchemaChangedException.class, 3);
  }

  /**
   * The code of the first of our errors in {@code t}'s chain: an exception of this library, or a
   * message carrying an {@code MSSQL_CDC-<n>} tag (an error that crossed Py4J or Spark Connect).
   */
  public static Optional<CdcErrorCode> codeOf(Throwable t) {
    for (Throwable c : chain(t)) {
      if (c instanceof CdcError e) {
        return Optional.of(e.code());
      }
      for (int n : tags(c)) {
        for (CdcErrorCode code : CdcErrorCode.values()) {
          if (code.number() == n) {
            return Optional.of(code);
          }
        }
      }
    }
    return Optional.empty();
  }

  private static boolean hasFamily(Throwable t, Class<? extends Throwable> type, int family) {
    for (Throwable c : chain(t)) {
      if (type.isInstance(c) || (c instanceof CdcError e && e.code().number() / 100 == family)) {
        return true;
      }
      for (int n : tags(c)) {
        if (n / 100 == family) {
          return true;
        }
      }
    }
    return false;
  }

  /** {@code t}, its causes and suppressed exceptions, breadth first, each once. */
  private static List<Throwable> chain(Throwable t) {
    Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    List<Throwable> out = new ArrayList<>();
    ArrayDeque<Throwable> todo = new ArrayDeque<>();
    if (t != null) {
      todo.add(t);
    }
    while (!todo.isEmpty()) {
      Throwable c = todo.poll();
      if (!seen.add(c)) {
        continue;
      }
      out.add(c);
      if (c.getCause() != null) {
        todo.add(c.getCause());
      }
      todo.addAll(Arrays.asList(c.getSuppressed()));
    }
    return out;
  }

  /** The numbers of the {@code MSSQL_CDC-<n>} tags in {@code t}'s message. */
  private static List<Integer> tags(Throwable t) {
    List<Integer> out = new ArrayList<>();
    String m = t.getMessage();
    if (m != null) {
      Matcher matcher = TAG.matcher(m);
      while (matcher.find()) {
        out.add(Integer.parseInt(matcher.group(1)));
      }
    }
    return out;
  }

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
    return offsetOfAnotherSource(checkpointSource, configuredSource, null, null);
  }

  /**
   * As above, saying why it is no rename: the capture instance the checkpoint's offsets
   * recorded ({@code checkpointInstance}, null when they record none) and the table it captures
   * now ({@code itsTable}, null when it resolves to none).
   */
  public static CdcStateException offsetOfAnotherSource(
      String checkpointSource, String configuredSource, String checkpointInstance, String itsTable) {
    String why;
    if (checkpointInstance == null) {
      why = " (A renamed table resumes on its checkpoint when the offsets record their capture instance, which"
          + " offsets of earlier releases do not.)";
    } else if (itsTable == null) {
      why = " (The checkpoint followed capture instance '" + printable(checkpointInstance) + "', which no longer"
          + " exists, so a rename cannot be told from another table.)";
    } else {
      why = " (The checkpoint followed capture instance '" + printable(checkpointInstance) + "', which captures '"
          + itsTable + "': it is not this table renamed.)";
    }
    return new CdcStateException(
        CdcErrorCode.OFFSET_OF_ANOTHER_SOURCE,
        "The checkpoint's offsets belong to source '" + checkpointSource + "', but this query reads '"
            + configuredSource + "'. A checkpoint follows one table: use a new checkpointLocation for '"
            + configuredSource + "'." + why);
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

  // ---- snapshots -----------------------------------------------------------------------

  /**
   * {@code Option 'snapshotChunks' must be a JSON list [[chunk, lo, hi], ...] ..., not '<v>':
   * <reason>.} The value is shortened to 200 characters.
   */
  public static CdcConfigException invalidSnapshotChunks(String value, String reason) {
    return new CdcConfigException(
        CdcErrorCode.INVALID_SNAPSHOT_CHUNKS,
        "Option 'snapshotChunks' must be a JSON list [[chunk, lo, hi], ...] (chunk an integer; lo inclusive, hi"
            + " exclusive, null for an open end; a value per key column, a list for composite keys), not '"
            + shorten(value, 200) + "': " + reason + ".");
  }

  /**
   * {@code snapshotChunks has key bounds, but <s>.<t>'s key [...] cannot be read in ranges
   * (<reason>)...}.
   */
  public static CdcConfigException keyNotRangeable(String table, List<String> keys, String reason) {
    return new CdcConfigException(
        CdcErrorCode.INVALID_SNAPSHOT_CHUNKS,
        "snapshotChunks has key bounds, but " + printable(table) + "'s key [" + printable(String.join(", ", keys))
            + "] cannot be read in ranges (" + reason + "). Read the whole table without snapshotChunks, or name"
            + " a unique key of bindable columns in snapshotKeys.");
  }

  /**
   * {@code <what> cannot use <s>.<t>'s key [...]: <reason, with what to do>.}: a key column of a source-table
   * statement (key buckets, key maximum, keyset bound) that does not exist or has a type the
   * statement cannot take. Both clients raise it with the same reason texts.
   */
  public static CdcConfigException keyColumnUnusable(String what, String table, List<String> keys, String reason) {
    return new CdcConfigException(
        CdcErrorCode.KEY_COLUMN_UNUSABLE,
        what + " cannot use " + printable(table) + "'s key [" + printable(String.join(", ", keys)) + "]: " + reason + ".");
  }

  /** The reason of {@link #keyColumnUnusable} for a column the table does not have. */
  public static String noSuchColumn(String column, List<String> columns) {
    return "the table has no column " + printable(column) + " (it has " + printable(String.join(", ", columns))
        + "): name its key columns as they are now";
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

  /** {@code s} cut to {@code max} characters (with "..."), control characters made printable. */
  public static String shorten(String s, int max) {
    String p = printable(s);
    return p.length() <= max ? p : p.substring(0, max - 3) + "...";
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

  // ---- SQL Server client (io.mssqlcdc.client.jdbc) -------------------------------------

  /** A keyword of an ODBC-style connection string that the JDBC driver has no equivalent for. */
  public static CdcConfigException invalidConnectionString(String keyword, String reason) {
    return new CdcConfigException(
        CdcErrorCode.INVALID_OPTION,
        "Option 'connectionString': cannot use keyword '" + printable(keyword) + "': " + reason
            + ". Pass a JDBC URL (jdbc:sqlserver://host:1433;databaseName=db;user=u;password=p;encrypt=true)"
            + " or an ODBC-style string such as Server=host,1433;Database=db;UID=u;PWD=p;Encrypt=yes.");
  }

  /** CDC is off on the database the connection string names. */
  public static CdcConfigException cdcNotEnabled(String database) {
    return new CdcConfigException(
        CdcErrorCode.CDC_NOT_ENABLED,
        "Change data capture is not enabled on database '" + printable(database) + "'. A db_owner enables it with:"
            + " USE [" + printable(database).replace("]", "]]") + "]; EXEC sys.sp_cdc_enable_db; then enables each table"
            + " with EXEC sys.sp_cdc_enable_table @source_schema = N'dbo', @source_name = N'<table>', @role_name = NULL;");
  }

  /** The capture job has not written to cdc.lsn_time_mapping (recently): SQL Server Agent or the job is stopped. */
  public static CdcSourceUnavailableException captureNotRunning(String database, String detail) {
    return new CdcSourceUnavailableException(
        CdcErrorCode.CAPTURE_NOT_RUNNING,
        "CDC capture does not seem to run on database '" + printable(database) + "': " + detail
            + ". Start SQL Server Agent, then the capture job: EXEC sys.sp_cdc_start_job @job_type = N'capture';"
            + " (check it with EXEC sys.sp_cdc_help_jobs;).");
  }

  /**
   * Capture has been stopped longer than the stream's {@code failWhenCaptureStoppedSeconds} (issue 30):
   * {@code detail} is the verdict's evidence and fix.
   */
  public static CdcSourceUnavailableException captureStoppedTooLong(String captureInstance, String detail,
      double stoppedSeconds, long thresholdSeconds) {
    return new CdcSourceUnavailableException(
        CdcErrorCode.CAPTURE_NOT_RUNNING,
        String.format(java.util.Locale.ROOT, "CDC capture has been stopped for %.0f s, longer than"
            + " failWhenCaptureStoppedSeconds=%d, for the stream of capture instance '%s': %s. The stream resumes"
            + " from its checkpoint once capture runs (nothing was read past its last offset).", stoppedSeconds,
            thresholdSeconds, printable(captureInstance), detail));
  }

  /** A transient failure that outlived the driver's retries. */
  public static CdcSourceUnavailableException sourceUnavailable(String what, int attempts, String detail, Throwable cause) {
    return new CdcSourceUnavailableException(
        CdcErrorCode.SOURCE_UNAVAILABLE,
        "SQL Server did not answer " + what + " after " + attempts + " attempt(s): " + detail
            + ". Restart the query; if it persists, check the server, the network and the connection string.",
        cause);
  }

  /** A statement failed for a reason that retrying does not fix. */
  public static CdcSourceUnavailableException statementFailed(String what, String detail, Throwable cause) {
    return new CdcSourceUnavailableException(
        CdcErrorCode.SOURCE_UNAVAILABLE,
        "SQL Server refused " + what + ": " + detail
            + ". If the message does not point to a fix, report it with the SQL Server version (SELECT @@VERSION).",
        cause);
  }

  /** The change table has no {@code __$command_id} column (servers before KB 3030352). */
  public static CdcConfigException commandIdMissing(String captureInstance) {
    return new CdcConfigException(
        CdcErrorCode.INVALID_OPTION,
        "Change table cdc.[" + printable(captureInstance) + "_CT] has no column __$command_id (SQL Server builds"
            + " before KB 3030352). Set the option includeCommandId=false to read it without.");
  }

  /** {@code OBJECT_ID} found no such table (or the login cannot see it). */
  public static CdcConfigException tableNotFound(String table) {
    return new CdcConfigException(
        CdcErrorCode.CAPTURE_INSTANCE_NOT_FOUND,
        "Table " + printable(table) + " not found, or the login lacks SELECT on it. Grant it: GRANT SELECT ON "
            + printable(table) + " TO <user>; (see sql/permissions.sql).");
  }

  /** Preflight: the capture instance is not listed; how a DBA creates it and grants it. */
  public static CdcConfigException captureInstanceMissing(String captureInstance, String detail) {
    return new CdcConfigException(
        CdcErrorCode.CAPTURE_INSTANCE_NOT_FOUND,
        detail + " To capture a table, a db_owner runs: EXEC sys.sp_cdc_enable_table @source_schema = N'<schema>',"
            + " @source_name = N'<table>', @capture_instance = N'" + printable(captureInstance).replace("'", "''")
            + "', @role_name = NULL, @supports_net_changes = 0; then GRANT SELECT ON cdc.["
            + printable(captureInstance) + "_CT] TO <user>; (see sql/permissions.sql).");
  }

  /** A value that its declared column type cannot hold at all (overflow, text that is no number). */
  public static CdcConfigException valueNotCastable(String column, String value, String type) {
    return new CdcConfigException(
        CdcErrorCode.VALUE_NOT_CASTABLE,
        "Cannot cast the value '" + shown(value) + "' of column '" + printable(column) + "' to its declared type "
            + type + ": declare a type that holds it in 'columns' (or omit 'columns' to infer the type).");
  }

  /**
   * A value its declared type holds only rounded or truncated (2.5 into INT, 1.2345 into
   * DECIMAL(18,2)): fails like the reference's safe cast, unless {@code allowPrecisionLoss}.
   */
  public static CdcConfigException valueLosesPrecision(String column, String value, String type, String becomes) {
    return new CdcConfigException(
        CdcErrorCode.VALUE_NOT_CASTABLE,
        "The value '" + shown(value) + "' of column '" + printable(column) + "' does not fit its declared type " + type
            + " without losing digits (it would become " + becomes + "): declare a type that holds it in 'columns'"
            + " (or omit 'columns' to infer the type), or set allowPrecisionLoss=true to round such values.");
  }

  private static String shown(String value) {
    String s = printable(value);
    return s.length() > 80 ? s.substring(0, 77) + "..." : s;
  }
}
