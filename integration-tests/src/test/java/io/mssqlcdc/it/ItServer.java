package io.mssqlcdc.it;

import static org.awaitility.Awaitility.await;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Assumptions;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.mssqlserver.MSSQLServerContainer;

/**
 * The SQL Server the integration tests run against, one per JVM (per clock):
 *
 * <ul>
 *   <li>{@code MSSQL_CDC_IT_URL} set: that server, a JDBC URL with a sysadmin login
 *       ({@code jdbc:sqlserver://host:1433;user=sa;password=...;encrypt=true;trustServerCertificate=true}).
 *       Its SQL Server Agent must run (CDC capture is an Agent job).
 *   <li>else, with Docker: Testcontainers {@code mcr.microsoft.com/mssql/server:2022-latest}
 *       with {@code MSSQL_AGENT_ENABLED=true} (override the image with {@code MSSQL_CDC_IT_IMAGE}).
 *   <li>else: every test is skipped (a JUnit assumption), so {@code mvn verify} passes without one.
 * </ul>
 *
 * It creates database {@code mssql_cdc_it} (or {@code MSSQL_CDC_IT_DATABASE}) with CDC enabled and
 * the capture job polling every second, and waits until capture runs.
 */
public final class ItServer {
  public static final String DATABASE = System.getenv().getOrDefault("MSSQL_CDC_IT_DATABASE", "mssql_cdc_it");
  private static final String IMAGE = System.getenv().getOrDefault("MSSQL_CDC_IT_IMAGE", "mcr.microsoft.com/mssql/server:2022-latest");
  private static final Map<String, ItServer> SERVERS = new ConcurrentHashMap<>();

  private final String serverUrl;

  private ItServer(String serverUrl) {
    this.serverUrl = serverUrl;
  }

  /** The shared server on a UTC clock; skips the calling test when none is available. */
  public static ItServer get() {
    return get("UTC");
  }

  /**
   * A server whose clock runs in {@code tz} (IANA name, container env {@code TZ}). Only Docker
   * can give other clocks than the one {@code MSSQL_CDC_IT_URL}'s server keeps ("UTC" there means
   * "that server"); without Docker such tests are skipped.
   */
  public static ItServer get(String tz) {
    return SERVERS.computeIfAbsent(tz, ItServer::start);
  }

  private static ItServer start(String tz) {
    String url = System.getenv("MSSQL_CDC_IT_URL");
    ItServer server;
    if (url != null && !url.isBlank()) {
      Assumptions.assumeTrue(tz.equals("UTC"), "a server with a " + tz + " clock needs Docker (MSSQL_CDC_IT_URL is one fixed server)");
      server = new ItServer(url.strip());
    } else {
      Assumptions.assumeTrue(dockerAvailable(), "No SQL Server: set MSSQL_CDC_IT_URL or run a Docker daemon (see docs/SQLSERVER.md)");
      MSSQLServerContainer c = new MSSQLServerContainer(IMAGE).acceptLicense()
          .withEnv("MSSQL_AGENT_ENABLED", "true")
          .withEnv("TZ", tz)
          .withStartupTimeout(Duration.ofMinutes(5));
      c.start();
      Runtime.getRuntime().addShutdownHook(new Thread(c::stop));
      String base = c.getJdbcUrl();
      server = new ItServer(base + (base.endsWith(";") ? "" : ";") + "user=" + c.getUsername() + ";password=" + c.getPassword()
          + ";trustServerCertificate=true");
    }
    server.prepareDatabase();
    return server;
  }

  private static boolean dockerAvailable() {
    try {
      return DockerClientFactory.instance().isDockerAvailable();
    } catch (RuntimeException | LinkageError e) {
      return false;
    }
  }

  public boolean isContainer() {
    return System.getenv("MSSQL_CDC_IT_URL") == null;
  }

  /** JDBC URL of the test database, sysadmin login. */
  public String url() {
    return serverUrl + (serverUrl.endsWith(";") ? "" : ";") + "databaseName=" + DATABASE;
  }

  /** JDBC URL of the test database for another login. */
  public String urlAs(String user, String password) {
    String noLogin = serverUrl.replaceAll("(?i);(user|password)=[^;]*", "");
    return noLogin + (noLogin.endsWith(";") ? "" : ";") + "databaseName=" + DATABASE + ";user=" + user + ";password=" + password;
  }

  /** A login of the test database with a password, and its JDBC URL. */
  public record Login(String name, String password, String url) {}

  /**
   * A new login (named {@code prefix} plus a unique suffix) whose user has only SELECT on {@code dbo.<table>}:
   * sql/permissions.sql's rights without the change-table grant.
   */
  public Login tableReader(String prefix, String table) {
    String login = ItTables.unique(prefix);
    String password = "It-" + Long.toHexString(System.nanoTime()) + "-Aa1!";
    exec("CREATE LOGIN [" + login + "] WITH PASSWORD = N'" + password + "', CHECK_POLICY = OFF");
    exec("CREATE USER [" + login + "] FOR LOGIN [" + login + "]");
    exec("GRANT SELECT ON dbo.[" + table + "] TO [" + login + "]");
    return new Login(login, password, urlAs(login, password));
  }

  /** A new sysadmin connection to the test database, autocommit on. */
  public Connection connect() {
    try {
      return DriverManager.getConnection(url());
    } catch (SQLException e) {
      throw new IllegalStateException("Cannot connect to the integration-test database: " + e.getMessage(), e);
    }
  }

  private void prepareDatabase() {
    try (Connection c = DriverManager.getConnection(serverUrl); Statement st = c.createStatement()) {
      st.execute("IF DB_ID(N'" + DATABASE + "') IS NULL CREATE DATABASE [" + DATABASE + "]");
    } catch (SQLException e) {
      throw new IllegalStateException("Cannot create database " + DATABASE + ": " + e.getMessage(), e);
    }
    try (Connection c = connect(); Statement st = c.createStatement()) {
      st.execute("IF (SELECT is_cdc_enabled FROM sys.databases WHERE database_id = DB_ID()) = 0 EXEC sys.sp_cdc_enable_db");
      st.execute("ALTER DATABASE CURRENT SET ALLOW_SNAPSHOT_ISOLATION ON");
      st.execute("IF OBJECT_ID(N'dbo.it_heartbeat') IS NULL BEGIN"
          + " CREATE TABLE dbo.it_heartbeat (id INT NOT NULL PRIMARY KEY, beat_at DATETIME2(3));"
          + " INSERT INTO dbo.it_heartbeat VALUES (1, SYSUTCDATETIME());"
          + " EXEC sys.sp_cdc_enable_table @source_schema = N'dbo', @source_name = N'it_heartbeat', @role_name = NULL;"
          + " END");
      // The first enabled table created the capture job. It polls every second instead of every 5 (tests
      // wait on it); restart it so that takes effect.
      st.execute("BEGIN TRY EXEC sys.sp_cdc_change_job @job_type = N'capture', @pollinginterval = 1 END TRY BEGIN CATCH END CATCH");
      st.execute("BEGIN TRY EXEC sys.sp_cdc_stop_job @job_type = N'capture' END TRY BEGIN CATCH END CATCH");
      st.execute("BEGIN TRY EXEC sys.sp_cdc_start_job @job_type = N'capture' END TRY BEGIN CATCH END CATCH");
    } catch (SQLException e) {
      throw new IllegalStateException("Cannot enable CDC on " + DATABASE + " (is SQL Server Agent running?): " + e.getMessage(), e);
    }
    await("capture job processes a first commit").atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(500))
        .until(() -> {
          exec("UPDATE dbo.it_heartbeat SET beat_at = SYSUTCDATETIME() WHERE id = 1");
          return scalar("SELECT CONVERT(varchar(22), sys.fn_cdc_get_max_lsn(), 1)") != null
              && scalar("SELECT CONVERT(varchar(22), MAX(__$start_lsn), 1) FROM cdc.[dbo_it_heartbeat_CT]") != null;
        });
  }

  /** Runs a statement with text parameters. */
  public void exec(String sql, Object... params) {
    try (Connection c = connect(); PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < params.length; i++) {
        ps.setObject(i + 1, params[i]);
      }
      ps.execute();
    } catch (SQLException e) {
      throw new IllegalStateException(sql + ": " + e.getMessage(), e);
    }
  }

  /** The first column of the first row as text, or null. */
  public String scalar(String sql, Object... params) {
    try (Connection c = connect(); PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < params.length; i++) {
        ps.setObject(i + 1, params[i]);
      }
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getString(1) : null;
      }
    } catch (SQLException e) {
      throw new IllegalStateException(sql + ": " + e.getMessage(), e);
    }
  }
}
