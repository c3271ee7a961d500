package io.mssqlcdc.errors;

/**
 * Stable codes of every error this library raises, one per condition. Codes never change
 * meaning and are never reused; {@code CdcErrorCodeTest} checks they are unique.
 */
public enum CdcErrorCode {
  INVALID_OPTION(100),
  UNKNOWN_OPTION(101),
  MISSING_OPTION(102),
  INVALID_LSN(103),
  INVALID_OFFSET(104),
  OFFSET_MOVED_BACKWARDS(105),
  OFFSET_OF_ANOTHER_SOURCE(106),
  OFFSET_VERSION_TOO_NEW(107),
  INVALID_IDENTIFIER(108),
  UNSUPPORTED_TYPE(109),
  RESERVED_COLUMN(110),
  COLUMN_NOT_CAPTURED(111),
  CAPTURE_INSTANCE_NOT_FOUND(112),
  CAPTURE_INSTANCE_AMBIGUOUS(113),
  NOTHING_CAPTURED_YET(114),
  INVALID_SNAPSHOT_CHUNKS(115),
  VALUE_NOT_CASTABLE(116),
  DATA_LOSS(200),
  SCHEMA_CHANGED(300),
  PERMISSION_DENIED(400),
  CDC_NOT_ENABLED(401),
  CAPTURE_NOT_RUNNING(402),
  SOURCE_UNAVAILABLE(500),
  FAKE_STATE(600),
  INTERNAL(900);

  private final int number;

  CdcErrorCode(int number) {
    this.number = number;
  }

  /** The numeric code, shown in messages as {@code MSSQL_CDC-<number>}. */
  public int number() {
    return number;
  }

  /** {@code MSSQL_CDC-<number>}. */
  public String tag() {
    return "MSSQL_CDC-" + number;
  }
}
