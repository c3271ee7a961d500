package io.mssqlcdc.standin;

import static io.mssqlcdc.fake.FakeRows.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.client.ChangeCursor;
import io.mssqlcdc.client.ChangeQuery;
import io.mssqlcdc.client.jdbc.SqlCdcClient;
import io.mssqlcdc.errors.CdcSourceUnavailableException;
import io.mssqlcdc.fake.FakeCdcDatabase;
import io.mssqlcdc.lsn.Lsn;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * TLS through the driver: the handshake inside PRELOGIN packets (the JDK's SSLEngine on the
 * stand-in's side), then the whole session encrypted ({@code encrypt=true}), or only the login
 * ({@code encrypt=false} against a server that supports encryption, TDS's ENCRYPT_OFF).
 */
class TlsTest {
  @TempDir static Path dir;
  static FakeCdcDatabase db;
  static SqlServerStandIn standIn;
  static Path keyStore;
  static Lsn first;
  static Lsn last;

  @BeforeAll
  static void setUp() {
    db = FakeCdcDatabase.create(dir.resolve("db"));
    db.createTable("dbo", "orders", "order_id int", "note nvarchar(100)").key("order_id");
    db.enableCdc("dbo", "orders");
    first = db.commit(tx -> tx.insert("orders", row("order_id", 1, "note", "secret \u2713")));
    last = db.commit(tx -> {
      for (int i = 2; i <= 2000; i++) {
        tx.insert("orders", row("order_id", i, "note", "row " + i));
      }
    });
    keyStore = StandInTls.keyStore(dir);
    standIn = SqlServerStandIn.start(dir.resolve("db"), StandInOptions.defaults().withTls(StandInTls.context(keyStore)));
  }

  @AfterAll
  static void tearDown() {
    standIn.close();
    db.close();
  }

  private static String url(String properties) {
    return standIn.jdbcUrl("").replace(";encrypt=false", "") + ";" + properties;
  }

  private static int read(SqlCdcClient c) {
    int n = 0;
    try (ChangeCursor cursor = c.changes(new ChangeQuery("dbo_orders", first, last, List.of("order_id", "note"), true, 100))) {
      while (cursor.next()) {
        n++;
        if (n == 1) {
          assertThat(cursor.value(1)).isEqualTo("secret \u2713");
        }
      }
    }
    return n;
  }

  private static SqlCdcClient open(String properties) {
    return SqlCdcClient.open(io.mssqlcdc.options.CdcReaderOptions.parse(java.util.Map.of("connectionString", url(properties),
        "captureInstance", "dbo_orders"), io.mssqlcdc.options.CdcReaderOptions.Reader.STREAM));
  }

  @Test
  void theWholeSessionIsEncryptedWithEncryptTrue() {
    try (SqlCdcClient c = open("encrypt=true;trustServerCertificate=true")) {
      assertThat(read(c)).isEqualTo(2000);
    }
  }

  @Test
  void theServerCertificateIsVerifiedAgainstATrustStore() {
    try (SqlCdcClient c = open("encrypt=true;trustStore=" + keyStore + ";trustStorePassword=" + StandInTls.PASSWORD
        + ";hostNameInCertificate=localhost")) {
      assertThat(read(c)).isEqualTo(2000);
    }
    int before = standIn.connections();
    try (SqlCdcClient c = open("encrypt=true;trustServerCertificate=false;hostNameInCertificate=localhost")) {
      assertThatThrownBy(c::maxLsn).isInstanceOf(CdcSourceUnavailableException.class)
          .hasMessageContaining("SQL Server refused sys.fn_cdc_get_max_lsn()")
          .hasMessageContaining("SQLState 08S01")
          .hasMessageContaining("trustServerCertificate")
          .hasMessageContaining("PKIX path building failed");
    }
    assertThat(standIn.connections() - before).as("an untrusted certificate is not retried").isEqualTo(1);
  }

  @Test
  void onlyTheLoginIsEncryptedWithEncryptFalse() {
    try (SqlCdcClient c = open("encrypt=false")) {
      assertThat(read(c)).isEqualTo(2000);
    }
    assertThat(standIn.logins()).last().satisfies(l -> assertThat(l.userName()).isEqualTo("cdc_reader"));
  }
}
