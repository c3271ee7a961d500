package io.mssqlcdc.client;

import io.mssqlcdc.lsn.Lsn;
import java.io.Serializable;
import java.time.Instant;

/**
 * A DDL statement recorded for a capture instance ({@code sys.sp_cdc_get_ddl_history}).
 *
 * @param captureInstance the instance that recorded it
 * @param lsn {@code ddl_lsn}; a DDL LSN is no commit's
 * @param command {@code ddl_command}, as recorded
 * @param commitTime UTC commit time of the last commit at or before {@code lsn}; {@code null}
 *     when none is known
 */
public record DdlEvent(String captureInstance, Lsn lsn, String command, Instant commitTime) implements Serializable {}
