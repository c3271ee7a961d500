package io.mssqlcdc.client.contract;

import io.mssqlcdc.client.CdcClient;
import io.mssqlcdc.lsn.Lsn;
import java.math.BigDecimal;
import java.util.List;

/**
 * The writer side of {@code CdcClientContractTest}: scripts a history on a CDC source (the fake,
 * or a real SQL Server) that the contract test then reads through {@link #client()}.
 *
 * <p>Every tracked table has the same shape, so both backends can create it:
 * {@code [dbo].[<table>] (id INT NOT NULL PRIMARY KEY, name NVARCHAR(50) NULL, amount
 * DECIMAL(18,2) NULL)}, captured whole by one capture instance {@code dbo_<table>}.
 */
public interface ContractHistory extends AutoCloseable {

  /**
   * Creates {@code dbo.<table>} and enables CDC on it; returns the capture instance name
   * ({@code dbo_<table>}). Returns once capture has processed the enable (min_lsn non-zero).
   */
  String createTrackedTable(String table);

  /**
   * Commits {@code ops} as one transaction on {@code dbo.<table>} and returns its commit LSN
   * ({@code __$start_lsn} of its change rows), once capture has processed it
   * ({@code max_lsn >= lsn}).
   */
  Lsn commit(String table, List<RowOp> ops);

  /**
   * Like {@link #commit}, and then the commit's {@code cdc.lsn_time_mapping.tran_end_time} (the
   * server clock's local time) is {@code serverTime}, as if the server clock had shown it: a
   * history in a daylight-saving hour whatever the clock says now. Idle mapping entries capture
   * wrote since the previous {@code commitAt} of this history get the same time, so the scripted
   * times are the mapping's in LSN order.
   */
  Lsn commitAt(String table, List<RowOp> ops, java.time.LocalDateTime serverTime);

  /**
   * A client of this source that converts commit times with the zone {@code ianaZone} (an IANA
   * id such as {@code America/New_York}, given to the client in the name its server takes: a
   * Windows name for SQL Server), as a {@code sourceTimeZone} option would. The history owns it.
   */
  CdcClient clientWithClock(String ianaZone);

  /**
   * Enables a second capture instance {@code name} on {@code dbo.<table>} capturing
   * {@code columns}; returns once capture has processed the enable. Its start LSN is then
   * reported by {@link CdcClient#captureInstances}.
   */
  void addCaptureInstance(String table, String name, List<String> columns);

  /**
   * CDC cleanup of {@code captureInstance} up to {@code lowWatermark}: moves its low watermark
   * there and deletes its change rows below it ({@code sys.sp_cdc_cleanup_change_table}).
   */
  void cleanup(String captureInstance, Lsn lowWatermark);

  /**
   * Creates {@code dbo.<table>}, not captured, with {@code columns} ({@code "<name> <type>"}, of
   * the types {@code tinyint, smallint, int, bigint, date, time(7), nvarchar(n), decimal(p,s)}),
   * every column NULL-able, and a unique index on {@code key} (not a primary key: one row may have
   * NULL keys, as SQL Server's unique indexes allow). Character columns compare in the binary
   * collation {@code Latin1_General_100_BIN2}, the one the fake reports and orders strings by.
   */
  void createTable(String table, List<String> columns, List<String> key);

  /**
   * Inserts {@code rows} into a table {@link #createTable} made, in one transaction: each row's
   * values in the order of its columns ({@code Short}, {@code Integer}, {@code Long},
   * {@code LocalDate}, {@code String}, {@code BigDecimal} or null).
   */
  void insert(String table, List<List<Object>> rows);

  /** A client reading this source. The history owns it (closes it in {@link #close()}). */
  CdcClient client();

  @Override
  void close();

  /** One row operation of a transaction. */
  record RowOp(Kind kind, int id, String name, BigDecimal amount) {
    public enum Kind { INSERT, UPDATE, DELETE }

    public static RowOp insert(int id, String name, String amount) {
      return new RowOp(Kind.INSERT, id, name, amount == null ? null : new BigDecimal(amount));
    }

    public static RowOp update(int id, String name, String amount) {
      return new RowOp(Kind.UPDATE, id, name, amount == null ? null : new BigDecimal(amount));
    }

    public static RowOp delete(int id) {
      return new RowOp(Kind.DELETE, id, null, null);
    }
  }
}
