package io.mssqlcdc.errors;

/**
 * The messages of finalization ({@code finalized_until} and its control table), one factory
 * method per condition. Where the Python reference has a message for the same condition, the text
 * starts as its does ({@code granularity must be one of ('minute', 'hour', 'day')}).
 */
public final class FinalizationErrors {
  private FinalizationErrors() {}

  /** A granularity other than minute, hour or day. */
  public static CdcConfigException invalidGranularity(String given) {
    return new CdcConfigException(CdcErrorCode.INVALID_GRANULARITY,
        "granularity must be one of ('minute', 'hour', 'day'), not '" + CdcErrors.printable(given)
            + "'. It is the period finalized_until is counted in: pick the period downstream jobs gate on.");
  }

  /** A period end that is not a date-time the verdict can be compared with. */
  public static CdcConfigException invalidPeriodEnd(String given, String reason) {
    return new CdcConfigException(CdcErrorCode.INVALID_PERIOD_END,
        "periodEnd '" + CdcErrors.printable(given) + "' " + reason + ". Pass the exclusive end of the period as an"
            + " ISO-8601 date-time, with an offset or zone (e.g. 2026-03-01T12:00:00+02:00, read in UTC) or without"
            + " one (2026-03-01T10:00:00, taken as UTC), or as an Instant, OffsetDateTime, ZonedDateTime or"
            + " LocalDateTime (UTC).");
  }

  /** The control table to read does not exist. */
  public static CdcStateException controlTableMissing(String table) {
    return new CdcStateException(CdcErrorCode.CONTROL_TABLE_MISSING,
        "The control table " + table + " does not exist, so no verdict can be read from it. It is created by the"
            + " first Finalization.advance or Finalization.track on it (or by a stream started with tracking): check"
            + " the name is the one the pipeline writes, spelled the same way, and that the pipeline has started.");
  }

  /** A source's end offset in a query progress is not an {@code mssql_cdc} offset. */
  public static CdcConfigException notACdcOffset(
      int sourceIndex, String description, String json, String reason, Throwable cause) {
    return new CdcConfigException(CdcErrorCode.NOT_A_CDC_OFFSET,
        "Source " + sourceIndex + " of the query progress (" + CdcErrors.printable(description)
            + ") has the end offset " + CdcErrors.printable(json) + ", which is not an mssql_cdc offset: " + reason
            + ". Finalization follows a format(\"mssql_cdc\") stream: pass the sourceIndex of that source in the"
            + " query (0 for the first).", cause);
  }

  /** A query progress given as text that is not a progress's JSON. */
  public static CdcConfigException invalidProgress(String json, String reason) {
    String shown = json.length() > 200 ? json.substring(0, 200) + "..." : json;
    return new CdcConfigException(CdcErrorCode.INVALID_PROGRESS,
        "Cannot read the query progress '" + CdcErrors.printable(shown) + "': " + reason + ". Pass a"
            + " StreamingQueryProgress, or its JSON (progress.json(); in PySpark query.lastProgress.json).");
  }

  /** A required argument of a finalization call is missing or invalid. */
  public static CdcConfigException invalidArgument(String name, String given, String expected) {
    return new CdcConfigException(CdcErrorCode.INVALID_FINALIZATION_ARGUMENT,
        name + " must be " + expected + ", not " + (given == null ? "null" : "'" + CdcErrors.printable(given) + "'")
            + ".");
  }
}
