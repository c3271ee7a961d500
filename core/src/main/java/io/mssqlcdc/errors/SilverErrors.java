package io.mssqlcdc.errors;

import java.util.List;

/**
 * The messages of silver ({@code ApplyChanges}, the current-state table), one factory method per
 * condition. Where the Python reference's {@code apply_changes} has a message for the same
 * condition, the text follows it with this library's argument names ({@code captureInstance},
 * {@code keys}, {@code factsTable}, {@code options}), so an operator who knows one recognises the
 * other.
 */
public final class SilverErrors {
  private SilverErrors() {}

  /** A required argument of {@code ApplyChanges} is missing or invalid. */
  public static CdcConfigException invalidArgument(String name, String given, String expected) {
    return new CdcConfigException(CdcErrorCode.INVALID_SILVER_ARGUMENT,
        name + " must be " + expected + ", not " + (given == null ? "null" : "'" + CdcErrors.printable(given) + "'")
            + ".");
  }

  /** Two arguments that cannot go together. */
  public static CdcConfigException conflict(String message) {
    return new CdcConfigException(CdcErrorCode.INVALID_SILVER_ARGUMENT, message);
  }

  /** Neither a capture instance nor options naming one. */
  public static CdcConfigException noCaptureInstance() {
    return new CdcConfigException(CdcErrorCode.SILVER_NO_CAPTURE_INSTANCE,
        "pass captureInstance, or the stream's options with captureInstance: silver applies the rows of that"
            + " capture instance (and of the other capture instances of its table).");
  }

  /** Neither keys nor options to read the unique index with. */
  public static CdcConfigException noKeys(String captureInstance) {
    return new CdcConfigException(CdcErrorCode.SILVER_NO_KEYS,
        "pass keys, or the stream's options to read them from the capture instance's unique index ("
            + CdcErrors.printable(captureInstance) + ").");
  }

  /** The capture instance has no unique index ({@code index_column_list} empty). */
  public static CdcConfigException noUniqueIndex(String captureInstance) {
    return new CdcConfigException(CdcErrorCode.SILVER_NO_UNIQUE_INDEX,
        CdcErrors.printable(captureInstance) + " has no unique index to key rows by: pass keys (the columns that"
            + " identify a row of the source table).");
  }

  /** Keys that are not captured columns of bronze. */
  public static CdcConfigException keysNotCaptured(List<String> missing, String bronze, List<String> captured) {
    return new CdcConfigException(CdcErrorCode.SILVER_KEYS_NOT_CAPTURED,
        "keys " + missing + " are not captured columns of " + bronze + ": " + captured + ". Pass the source's key"
            + " columns as the capture instance captures them.");
  }

  /** Bronze holds rows of a capture instance that is not this table's. */
  public static CdcConfigException otherCaptureInstance(String bronze, String other, String captureInstance,
      boolean optionsGiven) {
    return new CdcConfigException(CdcErrorCode.SILVER_OTHER_CAPTURE_INSTANCE,
        bronze + " holds rows of capture instance '" + CdcErrors.printable(other) + "', which is not '"
            + CdcErrors.printable(captureInstance) + "' or another capture instance of its table"
            + (optionsGiven ? ". Silver applies one source table: give each table its own bronze and silver."
                : ": pass options (the stream's) to read them from SQL Server."));
  }

  /** Chunk rows in bronze, but no facts table to say which chunks arrived. */
  public static CdcConfigException chunksWithoutFacts(String bronze) {
    return new CdcConfigException(CdcErrorCode.SILVER_CHUNKS_WITHOUT_FACTS,
        bronze + " holds rows of a chunked snapshot: pass factsTable (the stream's), whose rows say which chunks"
            + " arrived and when the snapshot is complete.");
  }

  /** Chunk rows in bronze, but the facts hold no chunked {@code snapshot_open} row for it. */
  public static CdcConfigException chunksWithoutOpen(String bronze, String facts, List<String> targets) {
    return new CdcConfigException(CdcErrorCode.SILVER_CHUNKS_WITHOUT_OPEN,
        bronze + " holds rows of a chunked snapshot, but " + facts + " has no 'snapshot_open' row for target = '"
            + bronze + "': is it named otherwise in the stream's target? Targets with one: " + targets);
  }

  /** The bronze table lacks the columns the sink writes. */
  public static CdcConfigException notABronzeTable(String bronze, List<String> missing) {
    return new CdcConfigException(CdcErrorCode.SILVER_NOT_A_BRONZE_TABLE,
        bronze + " is not a bronze table written by the stream: it has no column(s) " + missing + ". Pass the"
            + " stream's target as bronze (and the current-state table as target).");
  }
}
