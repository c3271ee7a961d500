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
  // 150-199: the Delta sink and the pipeline (sink module)
  PIPELINE_ARGUMENTS_CONFLICT(150),
  INVALID_TEMPLATE(151),
  DATA_LOSS(200),
  RESNAPSHOT_TOO_SOON(250),
  RESNAPSHOT_OUTRUN_BY_CLEANUP(251),
  SCHEMA_CHANGED(300),
  TABLE_CANNOT_TAKE_TYPE(350),
  COLUMN_MAPPING_REQUIRED(351),
  PERMISSION_DENIED(400),
  CDC_NOT_ENABLED(401),
  CAPTURE_NOT_RUNNING(402),
  SOURCE_UNAVAILABLE(500),
  FAKE_STATE(600),
  // 700-749: state the sink and the pipeline keep (checkpoints, tables, generations)
  CHECKPOINT_REWOUND(700),
  CHECKPOINT_NOT_VISIBLE(701),
  CHECKPOINT_UNREADABLE(702),
  TABLE_NEEDS_NEWER_RELEASE(703),
  SNAPSHOT_MODE_LOCKED(704),
  GENERATION_STATE_UNREADABLE(705),
  TABLE_NOT_DELTA(706),
  // 760-779: finalization (the control table and finalized_until)
  INVALID_GRANULARITY(760),
  INVALID_PERIOD_END(761),
  CONTROL_TABLE_MISSING(762),
  NOT_A_CDC_OFFSET(763),
  INVALID_PROGRESS(764),
  INVALID_FINALIZATION_ARGUMENT(765),
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
