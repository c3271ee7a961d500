package io.mssqlcdc.client.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.mssqlcdc.client.jdbc.SqlServerErrors.Kind;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SqlServerErrorsTest {

  @ParameterizedTest(name = "error {0} SQLState {1} is {2}")
  @CsvSource({
      "1205, 40001, TRANSIENT",   // deadlock victim
      "1222, S0001, TRANSIENT",   // lock request time out (SET LOCK_TIMEOUT)
      "596, S0001, TRANSIENT",    // session in kill state
      "10054, 08S01, TRANSIENT",  // connection reset by peer
      "0, 08S01, TRANSIENT",      // driver: connection closed
      "0, 08001, TRANSIENT",      // cannot connect
      "40613, S0001, TRANSIENT",  // Azure SQL database not currently available
      "4060, S0001, TRANSIENT",   // cannot open database requested by the login (recovery, failover)
      "0, HYT00, TRANSIENT",
      "229, S0005, PERMISSION",   // SELECT permission denied on object
      "230, S0005, PERMISSION",
      "916, S0001, PERMISSION",
      "208, S0002, MISSING_OBJECT",
      "207, S0001, INVALID_COLUMN",
      "18456, S0001, LOGIN_FAILED",
      "9820, S0001, UNKNOWN_TIME_ZONE", // AT TIME ZONE: unknown zone name
      "3952, S0001, SNAPSHOT_NOT_ALLOWED", // snapshot isolation not allowed in this database
      "102, S0001, OTHER",        // syntax error
      "8115, S0001, OTHER"        // arithmetic overflow
  })
  void classifiesByNumberAndState(int number, String state, Kind kind) {
    assertThat(SqlServerErrors.classify(new SQLException("any text", state, number))).isEqualTo(kind);
  }

  @Test
  void aQueryTimeoutIsTransientByItsJdbcTypeNotByAnExplicitCancelsSqlState() {
    // what mssql-jdbc throws when queryTimeout expires (seen through the SQL Server stand-in)
    assertThat(SqlServerErrors.classify(new java.sql.SQLTimeoutException("The query has timed out.", "HY008", 0)))
        .isEqualTo(Kind.TRANSIENT);
    assertThat(SqlServerErrors.classify(new SQLException("The query was canceled.", "HY008", 0))).isEqualTo(Kind.OTHER);
  }

  @Test
  void aServerCertificateTheDriverDoesNotTrustIsNotRetried() {
    // mssql-jdbc: SQLServerException 08S01 caused by SSLHandshakeException caused by the PKIX failure
    Exception pkix = new javax.net.ssl.SSLHandshakeException("PKIX path building failed");
    pkix.initCause(new java.security.cert.CertPathBuilderException("unable to find valid certification path"));
    assertThat(SqlServerErrors.classify(new SQLException("could not establish a secure connection", "08S01", 0, pkix)))
        .isEqualTo(Kind.OTHER);
    assertThat(SqlServerErrors.classify(new SQLException("reset during the handshake", "08S01", 0,
        new javax.net.ssl.SSLHandshakeException("Remote host terminated the handshake")))).isEqualTo(Kind.TRANSIENT);
  }

  @Test
  void messageTextIsNeverUsed() {
    assertThat(SqlServerErrors.classify(new SQLException("Transaction was deadlocked ... deadlock victim", "S0001", 50000)))
        .isEqualTo(Kind.OTHER);
    assertThat(SqlServerErrors.classify(new SQLException("connection reset", null, 0))).isEqualTo(Kind.OTHER);
  }

  @Test
  void looksAlongTheChain() {
    SQLException outer = new SQLException("wrapper", "S0001", 3621); // "The statement has been terminated."
    outer.setNextException(new SQLException("deadlock", "40001", 1205));
    assertThat(SqlServerErrors.classify(outer)).isEqualTo(Kind.TRANSIENT);
    SQLException caused = new SQLException("outer", null, 0, new SQLException("denied", "S0005", 229));
    assertThat(SqlServerErrors.classify(caused)).isEqualTo(Kind.PERMISSION);
  }

  @Test
  void describeMasksPasswords() {
    String d = SqlServerErrors.describe(new SQLException("Login failed; url had password=hunter2;", "S0001", 18456));
    assertThat(d).startsWith("error 18456 (SQLState S0001): ").doesNotContain("hunter2").contains("password=***");
  }
}
