package io.mssqlcdc.client.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.errors.CdcConfigException;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class ConnectionStringsTest {

  @Test
  void odbcKeywordsBecomeJdbcProperties() {
    ConnectionStrings.Target t = ConnectionStrings.toJdbc(
        "Driver={ODBC Driver 18 for SQL Server};Server=tcp:db.example.com,1433;Database=sales;UID=cdc_reader;"
            + "PWD={p;a}}ss};Encrypt=yes;TrustServerCertificate=no;HostNameInCertificate=*.example.com;"
            + "Connection Timeout=15;ApplicationIntent=ReadOnly", 30, false);
    assertThat(t.url()).isEqualTo("jdbc:sqlserver://db.example.com:1433;");
    Properties p = t.properties();
    assertThat(p.getProperty("databaseName")).isEqualTo("sales");
    assertThat(p.getProperty("user")).isEqualTo("cdc_reader");
    assertThat(p.getProperty("password")).isEqualTo("p;a}ss");
    assertThat(p.getProperty("encrypt")).isEqualTo("true");
    assertThat(p.getProperty("trustServerCertificate")).isEqualTo("false");
    assertThat(p.getProperty("hostNameInCertificate")).isEqualTo("*.example.com");
    assertThat(p.getProperty("loginTimeout")).isEqualTo("15");
    assertThat(p.getProperty("applicationIntent")).isEqualTo("ReadOnly");
    assertThat(p.getProperty("responseBuffering")).isEqualTo("adaptive");
    assertThat(p.getProperty("applicationName")).isEqualTo("mssql-cdc-spark");
  }

  @Test
  void namedInstancesAndStrictEncryption() {
    ConnectionStrings.Target t = ConnectionStrings.toJdbc("server=host\\SQL2019;database=d;encrypt=strict", 30, false);
    assertThat(t.url()).isEqualTo("jdbc:sqlserver://host\\SQL2019;");
    assertThat(t.properties().getProperty("encrypt")).isEqualTo("strict");
    assertThat(t.properties().getProperty("loginTimeout")).isEqualTo("30");
  }

  @Test
  void explicitConnectTimeoutOptionWins() {
    assertThat(ConnectionStrings.toJdbc("Server=h;Connect Timeout=5", 60, true).properties().getProperty("loginTimeout"))
        .isEqualTo("60");
  }

  @Test
  void jdbcUrlsPassThroughWithTheClientsDefaultsAdded() {
    ConnectionStrings.Target t = ConnectionStrings.toJdbc(
        "jdbc:sqlserver://h:1433;databaseName=d;user=u;password=secret;encrypt=true;trustServerCertificate=true;loginTimeout=7",
        30, false);
    assertThat(t.url()).isEqualTo(
        "jdbc:sqlserver://h:1433;databaseName=d;user=u;password=secret;encrypt=true;trustServerCertificate=true;loginTimeout=7");
    assertThat(t.properties().getProperty("loginTimeout")).isNull();
    assertThat(t.properties().getProperty("responseBuffering")).isEqualTo("adaptive");
  }

  /**
   * LSN and key bounds, capture instance and zone names are text parameters: sent as varchar in the
   * database's code page they would mangle non-ASCII names and nvarchar bounds. The client's
   * properties win over the URL's (mssql-jdbc resolves duplicates: API arguments, then the
   * Properties, then the URL), checked here with the real driver's own resolution.
   */
  @Test
  void stringParametersAreAlwaysSentAsUnicode() throws Exception {
    for (String cs : new String[] {
        "jdbc:sqlserver://h:1433;databaseName=d;sendStringParametersAsUnicode=false",
        "jdbc:sqlserver://h:1433;databaseName=d;SENDSTRINGPARAMETERSASUNICODE=false;",
        "jdbc:sqlserver://h:1433;databaseName=d",
        "Server=h;Database=d"}) {
      ConnectionStrings.Target t = ConnectionStrings.toJdbc(cs, 30, false);
      assertThat(t.properties().getProperty("sendStringParametersAsUnicode")).as(cs).isEqualTo("true");
      java.sql.DriverPropertyInfo[] info = new com.microsoft.sqlserver.jdbc.SQLServerDriver().getPropertyInfo(t.url(), t.properties());
      assertThat(java.util.Arrays.stream(info).filter(i -> i.name.equalsIgnoreCase("sendStringParametersAsUnicode"))
          .map(i -> i.value)).as("the driver's resolution of %s", cs).containsExactly("true");
    }
  }

  @Test
  void passwordsAreMaskedInEveryRendering() {
    ConnectionStrings.Target odbc = ConnectionStrings.toJdbc("Server=h;UID=u;PWD={s3cr;et}", 30, false);
    assertThat(odbc.toString()).doesNotContain("s3cr").contains("password=***");
    ConnectionStrings.Target jdbc = ConnectionStrings.toJdbc("jdbc:sqlserver://h;user=u;password=s3cret", 30, false);
    assertThat(jdbc.toString()).doesNotContain("s3cret").contains("password=***");
    assertThat(ConnectionStrings.mask("Server=h;PWD={a;b}}c};UID=u")).isEqualTo("Server=h;PWD=***;UID=u");
  }

  @Test
  void unknownKeywordsFailNamingTheKeywordNotTheValue() {
    assertThatThrownBy(() -> ConnectionStrings.toJdbc("Server=h;PWD=topsecret;Colour=blue", 30, false))
        .isInstanceOf(CdcConfigException.class)
        .hasMessageContaining("'colour'")
        .hasMessageContaining("no JDBC equivalent")
        .hasMessageNotContaining("topsecret")
        .hasMessageNotContaining("blue");
  }

  @Test
  void badInputsSayWhatIsExpected() {
    assertThatThrownBy(() -> ConnectionStrings.toJdbc("Database=d;UID=u", 30, false))
        .hasMessageContaining("'Server'").hasMessageContaining("missing");
    assertThatThrownBy(() -> ConnectionStrings.toJdbc("Server=h,abc", 30, false))
        .hasMessageContaining("port after ',' must be a number");
    assertThatThrownBy(() -> ConnectionStrings.toJdbc("Server=h;Encrypt=perhaps", 30, false))
        .hasMessageContaining("expected yes, no, mandatory, optional or strict");
    assertThatThrownBy(() -> ConnectionStrings.toJdbc("Server=h;PWD={zz9secret", 30, false))
        .hasMessageContaining("not closed with '}'").hasMessageNotContaining("zz9secret");
    assertThatThrownBy(() -> ConnectionStrings.toJdbc("jdbc:postgresql://h/db", 30, false))
        .hasMessageContaining("only SQL Server URLs");
    assertThatThrownBy(() -> ConnectionStrings.toJdbc("just-a-host", 30, false))
        .hasMessageContaining("expected keyword=value");
  }

  @Test
  void parserHandlesBracesBlanksAndCase() {
    assertThat(ConnectionStrings.parse(" SERVER = h ; PWD = {x;y}} } ;Trusted_Connection=yes"))
        .containsEntry("server", "h ")
        .containsEntry("pwd", "x;y} ")
        .containsEntry("trusted_connection", "yes");
  }
}
