package io.mssqlcdc.client.jdbc;

import io.mssqlcdc.client.ChangeCursor;
import io.mssqlcdc.lsn.Lsn;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.Arrays;
import java.util.function.Function;

/**
 * Streams the rows of {@link CdcSql#changes}: columns 1..5 are the metadata
 * ({@code _start_lsn}, {@code _seqval}, {@code _operation}, {@code _command_id},
 * {@code _commit_ts}), then the captured columns selected. Requested columns the instance does
 * not capture were not selected and read as NULL ({@code positions[i] < 0}). With adaptive
 * response buffering the driver holds about one packet, never the range. Closed before its last
 * row, it cancels the statement so that closing does not read the rest of the range
 * ({@link JdbcRowCursor#close(boolean, ResultSet, Statement)}).
 */
final class JdbcChangeCursor implements ChangeCursor {
  static final int FIRST_VALUE = 6;

  private final Statement statement;
  private final ResultSet rs;
  private final int[] positions;
  private final JdbcValues.Reader[] readers;
  private final Function<SQLException, RuntimeException> translate;
  private Lsn startLsn;
  private Lsn seqval;
  private int operation;
  private int commandId;
  private Instant commitTime;
  /** The bytes {@link #startLsn} was read from (the previous row's). */
  private byte[] startBytes;
  private boolean exhausted;

  JdbcChangeCursor(Statement statement, ResultSet rs, int[] positions, Function<SQLException, RuntimeException> translate)
      throws SQLException {
    this.statement = statement;
    this.rs = rs;
    this.positions = positions;
    this.readers = JdbcValues.readers(rs.getMetaData(), FIRST_VALUE);
    this.translate = translate;
  }

  @Override
  public boolean next() {
    try {
      if (!rs.next()) {
        exhausted = true;
        return false;
      }
      // the rows of one transaction share their start LSN and so their commit time (the mapping's row
      // of that LSN): both are read once per transaction, the commit time's column not even decoded
      byte[] start = rs.getBytes(1);
      boolean sameTransaction = start != null && Arrays.equals(start, startBytes);
      if (!sameTransaction) {
        startLsn = Lsn.fromBytes(start);
        startBytes = start;
      }
      seqval = Lsn.fromBytes(rs.getBytes(2));
      operation = rs.getInt(3);
      commandId = rs.getInt(4);
      if (!sameTransaction) {
        commitTime = JdbcValues.utc(rs.getString(5));
      }
      return true;
    } catch (SQLException e) {
      throw translate.apply(e);
    }
  }

  @Override
  public Lsn startLsn() {
    return startLsn;
  }

  @Override
  public Lsn seqval() {
    return seqval;
  }

  @Override
  public int operation() {
    return operation;
  }

  @Override
  public int commandId() {
    return commandId;
  }

  @Override
  public Instant commitTime() {
    return commitTime;
  }

  @Override
  public Object value(int i) {
    int p = positions[i];
    if (p < 0) {
      return null;
    }
    try {
      return JdbcValues.read(rs, FIRST_VALUE + p, readers[p]);
    } catch (SQLException e) {
      throw translate.apply(e);
    }
  }

  @Override
  public void close() {
    JdbcRowCursor.close(exhausted, rs, statement);
  }
}
