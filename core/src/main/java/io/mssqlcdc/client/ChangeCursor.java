package io.mssqlcdc.client;

import io.mssqlcdc.lsn.Lsn;
import java.time.Instant;

/**
 * A forward-only cursor over change rows, in the order {@code (__$start_lsn, __$command_id,
 * __$seqval, __$operation)}. The accessors read the current row; they are valid only after
 * {@link #next()} returned true. Implementations stream: memory does not grow with the number of
 * rows in a transaction or range.
 *
 * <p>Values of captured columns are Java objects, {@code null} for SQL NULL:
 * {@code Boolean} (bit), {@code Short} (tinyint, smallint), {@code Integer}, {@code Long},
 * {@code Float} (real), {@code Double} (float), {@code java.math.BigDecimal} (decimal, numeric,
 * money), {@code java.time.LocalDate} (date), {@code java.time.LocalDateTime} (datetime,
 * datetime2, smalldatetime: as stored), {@code java.time.OffsetDateTime} (datetimeoffset),
 * {@code String} (character types, xml, time as {@code HH:mm:ss.nnnnnnnnn}, uniqueidentifier in
 * upper case) and {@code byte[]} (binary types, rowversion).
 */
public interface ChangeCursor extends AutoCloseable {
  /** Moves to the next row; false at the end. */
  boolean next();

  /** {@code __$start_lsn}: the commit LSN of the row's transaction. */
  Lsn startLsn();

  /** {@code __$seqval}: the order of the change inside its transaction. */
  Lsn seqval();

  /** {@code __$operation}: 1 delete, 2 insert, 3 update (before image), 4 update (after image). */
  int operation();

  /** {@code __$command_id}, numbered per capture instance; 0 when not read. */
  int commandId();

  /** The commit time of {@link #startLsn()} in UTC ({@code cdc.lsn_time_mapping.tran_end_time}). */
  Instant commitTime();

  /** The value of the i-th requested column (0-based, in {@link ChangeQuery#columns()} order). */
  Object value(int i);

  @Override
  void close();
}
