package io.mssqlcdc.client.jdbc;

import io.mssqlcdc.errors.CdcErrors;
import io.mssqlcdc.options.Identifiers;
import java.sql.SQLException;
import java.util.function.BiFunction;

/**
 * What a failed change-table read means (reference-behaviour §20 Q28, Q29): SQL Server answers a
 * read the login may not do, or of a change table without {@code __$command_id}, with errors that
 * do not say which; one probe on the same connection decides, and the error names the fix (the
 * GRANT, or {@code includeCommandId=false}). Part of {@link SqlCdcClient}.
 */
final class ChangeTableFailures {
  private final JdbcSession session;
  /** {@link SqlCdcClient}'s translation of a statement's failure, for what it was doing. */
  private final BiFunction<String, SQLException, RuntimeException> translate;

  ChangeTableFailures(JdbcSession session, BiFunction<String, SQLException, RuntimeException> translate) {
    this.session = session;
    this.translate = translate;
  }

  /**
   * The error a change-table read that failed with {@code e} is: a missing grant or instance (probe
   * Q28) or a change table without {@code __$command_id} (probe Q29, when the read selected it);
   * else the read's own error. A probe that fails itself leaves the read's error, with the probe's
   * failure suppressed in it.
   */
  RuntimeException of(String captureInstance, String what, boolean selectsCommandId, SQLException e) {
    SqlServerErrors.Kind kind = SqlServerErrors.classify(e);
    boolean probeGrant = kind == SqlServerErrors.Kind.PERMISSION || kind == SqlServerErrors.Kind.MISSING_OBJECT;
    boolean probeCommandId = kind == SqlServerErrors.Kind.INVALID_COLUMN && selectsCommandId;
    if (!probeGrant && !probeCommandId) {
      return translate.apply(what, e);
    }
    String table = CdcSql.changeTable(captureInstance);
    String probe = probeGrant ? "the permission probe" : "the __$command_id probe";
    String[] r;
    try {
      r = session.run(probe, () -> session.row(probeGrant
          ? SqlText.of(CdcSql.PERMISSION_PROBE, captureInstance, table)
          : SqlText.of(CdcSql.COMMAND_ID_PROBE, table)));
    } catch (SQLException probeFailure) {
      return keepingReadError(what, e, translate.apply(probe, probeFailure));
    } catch (io.mssqlcdc.errors.CdcSourceUnavailableException probeUnavailable) {
      // every attempt of the probe failed transiently: the retries gave up on the probe, not on the read,
      // whose own (non-transient) error is what the user must act on
      return keepingReadError(what, e, probeUnavailable);
    }
    RuntimeException decided = probeGrant ? grantDecision(captureInstance, table, r) : commandIdDecision(captureInstance, r);
    if (decided == null) {
      return translate.apply(what, e);
    }
    decided.addSuppressed(translate.apply(what, e));
    return decided;
  }

  /** The read's own error, with the probe's failure suppressed in it. */
  private RuntimeException keepingReadError(String what, SQLException readError, RuntimeException probeFailure) {
    RuntimeException original = translate.apply(what, readError);
    original.addSuppressed(probeFailure);
    return original;
  }

  /** Q28's answer: the instance is not there, or the login lacks the change-table grant; null when neither. */
  private static RuntimeException grantDecision(String captureInstance, String table, String[] r) {
    if (r[0] == null) {
      return CdcErrors.captureInstanceNotReady(captureInstance);
    }
    if (r[0].equals("0")) {
      String user;
      try {
        user = Identifiers.quote(r[1]);
      } catch (RuntimeException e) {
        user = "<user>";
      }
      return CdcErrors.missingGrant("change table " + table, "GRANT SELECT ON " + table + " TO " + user + ";");
    }
    return null;
  }

  /** Q29's answer: the change table has no {@code __$command_id} (NULL length); null when it has one. */
  private static RuntimeException commandIdDecision(String captureInstance, String[] r) {
    return r[0] == null ? CdcErrors.commandIdMissing(captureInstance) : null;
  }
}
