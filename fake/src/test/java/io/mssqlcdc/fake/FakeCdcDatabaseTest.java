package io.mssqlcdc.fake;

import static io.mssqlcdc.fake.FakeRows.key;
import static io.mssqlcdc.fake.FakeRows.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.client.CaptureInstance;
import io.mssqlcdc.client.CdcClient;
import io.mssqlcdc.client.CdcClients;
import io.mssqlcdc.client.ChangeCursor;
import io.mssqlcdc.client.ChangeQuery;
import io.mssqlcdc.errors.CdcConfigException;
import io.mssqlcdc.errors.CdcStateException;
import io.mssqlcdc.lsn.Lsn;
import io.mssqlcdc.options.CdcReaderOptions;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Fake-only behaviour: LSN layout, idle entries, the server clock, values, instances, format. */
class FakeCdcDatabaseTest {
  @TempDir
  Path dir;

  FakeCdcDatabase db;
  FakeCdcClient client;

  @BeforeEach
  void setUp() {
    db = FakeCdcDatabase.create(dir);
    db.createTable("dbo", "orders", "order_id int", "status varchar(20)", "amount decimal(18,2)").key("order_id");
    client = db.client();
  }

  private List<Object[]> rows(String ci, Lsn from, Lsn to, String... columns) {
    List<Object[]> out = new ArrayList<>();
    try (ChangeCursor c = client.changes(new ChangeQuery(ci, from, to, List.of(columns), true, 100))) {
      while (c.next()) {
        Object[] r = new Object[columns.length + 3];
        r[0] = c.startLsn();
        r[1] = c.operation();
        r[2] = c.commandId();
        for (int i = 0; i < columns.length; i++) {
          r[3 + i] = c.value(i);
        }
        out.add(r);
      }
    }
    return out;
  }

  @Test
  void lsnsStartAtTheFirstLsnAndAdvanceBySixteenWithSeqvalsInTheGap() {
    assertThat(client.maxLsn()).isEmpty();
    String ci = db.enableCdc("dbo", "orders");
    Lsn idle = db.idle();
    assertThat(idle).isEqualTo(Lsn.parse("0x0000002A000001000001"));
    Lsn l1 = db.commit(tx -> tx.insert("dbo.orders", row("order_id", 1, "status", "new", "amount", "9.90")));
    assertThat(l1).isEqualTo(idle.plus(16));
    assertThat(client.captureInstances(ci).get(0).startLsn()).isEqualTo(idle);
    try (ChangeCursor c = client.changes(new ChangeQuery(ci, l1, l1, List.of("order_id"), true, 10))) {
      assertThat(c.next()).isTrue();
      assertThat(c.seqval()).isEqualTo(idle.plus(1));
      assertThat(c.commandId()).isEqualTo(1);
    }
    assertThat(client.incrementLsn(l1)).isEqualTo(l1.plus(1));
    assertThat(client.decrementLsn(l1).plus(1)).isEqualTo(l1);
  }

  @Test
  void idleEntriesAreMappingEntriesWithoutChangeRows() {
    String ci = db.enableCdc("dbo", "orders");
    Lsn l1 = db.commit(tx -> tx.insert("orders", row("order_id", 1)));
    Lsn i1 = db.idle();
    Lsn i2 = db.idle();
    assertThat(client.maxLsn()).contains(i2);
    assertThat(client.commitTime(i1)).isPresent();
    assertThat(client.nthCommitAfter(l1, 1)).contains(i1);
    assertThat(client.nthCommitAfter(l1, 2)).contains(i2);
    assertThat(client.nthCommitAfter(l1, 3)).contains(i2);
    assertThat(client.nthCommitAfter(i2, 1)).isEmpty();
    assertThat(rows(ci, client.incrementLsn(l1), i2, "order_id")).isEmpty();
    assertThat(client.splitPoints(ci, l1, i2, 2)).hasSize(1);
  }

  @Test
  void commitTimesAreStoredServerLocalAndReportedInUtc() {
    db.serverTimeZone("America/Sao_Paulo");
    db.enableCdc("dbo", "orders");
    Lsn l1 = db.commitAt(LocalDateTime.parse("2026-03-01T10:00:00.123"), tx -> tx.insert("orders", row("order_id", 1)));
    Lsn idle = db.idleAt(LocalDateTime.parse("2026-03-01T10:05:00"));
    assertThat(client.sourceTimeZone()).isEqualTo("America/Sao_Paulo");
    assertThat(client.commitTime(l1)).contains(Instant.parse("2026-03-01T13:00:00.123Z"));
    assertThat(client.commitTime(idle)).contains(Instant.parse("2026-03-01T13:05:00Z"));
    try (ChangeCursor c = client.changes(new ChangeQuery("dbo_orders", l1, l1, List.of(), false, 1))) {
      assertThat(c.next()).isTrue();
      assertThat(c.commitTime()).isEqualTo(Instant.parse("2026-03-01T13:00:00.123Z"));
      assertThat(c.commandId()).isZero();
    }
    assertThatThrownBy(() -> db.serverTimeZone("Mars/Olympus"))
        .isInstanceOf(CdcConfigException.class)
        .hasMessage("MSSQL_CDC-100: Invalid time zone 'Mars/Olympus': use an IANA zone id such as 'UTC' or"
            + " 'America/Sao_Paulo', or a fixed offset such as 'UTC-03:00'.");
  }

  @Test
  void theServerClockFallsBackWithItsZoneButNotWhenTheClockItselfGoesBack() {
    // SQL Server's tran_end_time is the server's local time: at a fall-back it repeats an hour.
    db.serverTimeZone("America/New_York");
    db.enableCdc("dbo", "orders");
    db.clock(java.time.Clock.fixed(Instant.parse("2026-11-01T05:55:00Z"), java.time.ZoneOffset.UTC));
    Lsn firstPass = db.commit(tx -> tx.insert("orders", row("order_id", 1)));
    db.clock(java.time.Clock.fixed(Instant.parse("2026-11-01T06:05:00Z"), java.time.ZoneOffset.UTC));
    Lsn secondPass = db.commit(tx -> tx.insert("orders", row("order_id", 2)));
    db.clock(java.time.Clock.fixed(Instant.parse("2026-11-01T06:04:00Z"), java.time.ZoneOffset.UTC));
    Lsn clockBack = db.commit(tx -> tx.insert("orders", row("order_id", 3)));
    assertThat(rows("dbo_orders", firstPass, clockBack, "order_id")).hasSize(3);
    assertThat(client.commitTime(firstPass)).contains(Instant.parse("2026-11-01T05:55:00Z"));
    assertThat(client.commitTime(secondPass)).as("01:05 EST, not EDT").contains(Instant.parse("2026-11-01T06:05:00Z"));
    assertThat(client.commitTime(clockBack)).as("kept at the last entry's time").contains(Instant.parse("2026-11-01T06:05:00Z"));
  }

  @Test
  void theDefaultClockIsUtcAndNeverGoesBackwards() {
    assertThat(client.sourceTimeZone()).isEqualTo("UTC");
    Lsn a = db.idleAt(LocalDateTime.now().plusYears(1));
    Lsn b = db.idle();
    assertThat(client.commitTime(b).get()).isEqualTo(client.commitTime(a).get());
  }

  @Test
  void valuesAreCoercedToTheirColumnsJavaClass() {
    db.createTable("dbo", "wide", "id bigint", "tiny tinyint", "small smallint", "flag bit", "price money",
        "d date", "t datetime2(3)", "o datetimeoffset(2)", "tm time(7)", "g uniqueidentifier", "b varbinary(4)",
        "r real", "f float", "total decimal(18,2) computed", "big decimal(38,0)").key("id");
    String ci = db.enableCdc("dbo", "wide");
    UUID guid = UUID.fromString("6f9619ff-8b86-d011-b42d-00c04fc964ff");
    Lsn l = db.commit(tx -> tx.insert("wide", row("id", 7, "tiny", 255, "small", 12, "flag", 1, "price", 3,
        "d", "2026-01-02", "t", LocalDateTime.parse("2026-01-02T03:04:05.123456"),
        "o", "2026-01-02T03:04:05.129+02:00", "tm", "10:11:12.5", "g", guid, "b", new byte[] {1, 2},
        "r", 1.5, "f", 2, "total", new BigDecimal("1.00"), "big", "12345678901234567890123456789")));
    Object[] r = rows(ci, l, l, "id", "tiny", "small", "flag", "price", "d", "t", "o", "tm", "g", "b", "r", "f", "total")
        .get(0);
    assertThat(r[3]).isEqualTo(7L);
    assertThat(r[4]).isEqualTo((short) 255);
    assertThat(r[5]).isEqualTo((short) 12);
    assertThat(r[6]).isEqualTo(true);
    assertThat(r[7]).isEqualTo(new BigDecimal("3.0000"));
    assertThat(r[8]).isEqualTo(LocalDate.parse("2026-01-02"));
    assertThat(r[9]).isEqualTo(LocalDateTime.parse("2026-01-02T03:04:05.123"));
    assertThat(r[10]).isEqualTo(OffsetDateTime.parse("2026-01-02T03:04:05.12+02:00"));
    assertThat(r[11]).as("the reference's form, docs/decisions/0004").isEqualTo("10:11:12.500000000");
    assertThat(r[12]).isEqualTo("6F9619FF-8B86-D011-B42D-00C04FC964FF");
    assertThat(r[13]).isEqualTo(new byte[] {1, 2});
    assertThat(r[14]).isEqualTo(1.5f);
    assertThat(r[15]).isEqualTo(2.0d);
    assertThat(r[16]).as("computed columns are NULL in change rows").isNull();
    assertThat(client.capturedColumns(ci).get(13).computed()).isTrue();
    Object[] skipped = rows(ci, l, l, "big", "f", "missing").get(0);
    assertThat(skipped[3]).as("decoded after skipping every other type")
        .isEqualTo(new BigDecimal("12345678901234567890123456789"));
    assertThat(skipped[4]).isEqualTo(2.0d);
    assertThat(skipped[5]).as("a column the instance does not capture reads as NULL").isNull();
  }

  @Test
  void valuesThatDoNotFitAreRejectedNamingColumnTypeAndValue() {
    assertThatThrownBy(() -> db.commit(tx -> tx.insert("orders", row("order_id", 1, "status", "x".repeat(21)))))
        .isInstanceOf(CdcConfigException.class)
        .hasMessage("MSSQL_CDC-100: dbo.orders.status (varchar(20)): value '" + "x".repeat(21)
            + "' (String) does not fit: String or binary data would be truncated (21 characters, at most 20).");
    assertThatThrownBy(() -> db.commit(tx -> tx.insert("orders", row("order_id", 1, "amount", "1e17"))))
        .isInstanceOf(CdcConfigException.class)
        .hasMessage("MSSQL_CDC-100: dbo.orders.amount (decimal(18,2)): value '1e17' (String) does not fit: more than"
            + " 16 digits before the decimal point (arithmetic overflow).");
    assertThatThrownBy(() -> db.commit(tx -> tx.insert("orders", row("order_id", 3_000_000_000L))))
        .isInstanceOf(CdcConfigException.class)
        .hasMessage("MSSQL_CDC-100: dbo.orders.order_id (int): value '3000000000' (Long) does not fit: out of range"
            + " -2147483648..2147483647.");
    assertThatThrownBy(() -> db.commit(tx -> tx.insert("orders", row("nope", 1))))
        .isInstanceOf(CdcConfigException.class)
        .hasMessage("MSSQL_CDC-100: Invalid column name 'nope'. dbo.orders has columns order_id, status, amount.");
    assertThatThrownBy(() -> db.commit(tx -> tx.insert("dbo.missing", row("id", 1))))
        .isInstanceOf(CdcConfigException.class)
        .hasMessage("MSSQL_CDC-100: Table 'dbo.missing' does not exist in the fake database (tables: dbo.orders)."
            + " Create it with createTable first.");
    assertThat(client.maxLsn()).as("failed commits leave nothing behind").isEmpty();
  }

  @Test
  void keyViolationsAndMissingRowsFailLikeSqlServer() {
    db.commit(tx -> tx.insert("orders", row("order_id", 1)));
    assertThatThrownBy(() -> db.commit(tx -> tx.insert("orders", row("order_id", 1))))
        .isInstanceOf(CdcConfigException.class)
        .hasMessage("MSSQL_CDC-100: Violation of PRIMARY KEY constraint on dbo.orders. Cannot insert duplicate key [1]."
            + " Update or delete the existing row instead.");
    assertThatThrownBy(() -> db.commit(tx -> tx.delete("orders", key(2))))
        .isInstanceOf(CdcConfigException.class)
        .hasMessage("MSSQL_CDC-100: Cannot delete row [2] of dbo.orders: no such row. Insert it first.");
  }

  @Test
  void anUpdateWritesOnlyToInstancesWhoseCapturedValuesChangedWithCommandIdsPerInstance() {
    String all = db.enableCdc("dbo", "orders");
    String amounts = db.enableCdc("dbo", "orders", "orders_amounts", "order_id", "amount");
    Lsn l1 = db.commit(tx -> tx.insert("orders", row("order_id", 1, "status", "new", "amount", "1.00")));
    Lsn l2 = db.commit(tx -> tx.update("orders", row("order_id", 1, "status", "paid")));
    assertThat(rows(all, l2, l2, "status")).extracting(r -> r[1] + ":" + r[3]).containsExactly("3:new", "4:paid");
    assertThat(rows(amounts, l2, l2, "amount")).isEmpty();
    assertThat(rows(all, l1, l1, "order_id").get(0)[2]).isEqualTo(1);
    assertThat(rows(amounts, l1, l1, "order_id").get(0)[2]).isEqualTo(2);
    assertThat(rows(amounts, l1, l1, "status").get(0)[3]).as("not captured: NULL").isNull();
  }

  @Test
  void aThirdCaptureInstanceFailsLikeSqlServer() {
    db.enableCdc("dbo", "orders");
    db.enableCdc("dbo", "orders", "dbo_orders_v2");
    assertThatThrownBy(() -> db.enableCdc("dbo", "orders", "dbo_orders_v3"))
        .isInstanceOf(CdcConfigException.class)
        .hasMessage("MSSQL_CDC-100: Could not create a capture instance because two capture instances already exist"
            + " for source table 'dbo.orders'. A table can have at most two capture instances. Disable one of them first.");
  }

  @Test
  void aDisabledDefaultNamedInstanceResolvesToItsTablesCurrentInstances() {
    String first = db.enableCdc("dbo", "orders");
    db.commit(tx -> tx.insert("orders", row("order_id", 1)));
    db.enableCdc("dbo", "orders", "orders_v2");
    db.disableCdc(first);
    assertThat(client.captureInstances("dbo_orders")).extracting(CaptureInstance::name).containsExactly("orders_v2");
    assertThatThrownBy(() -> client.minLsn("dbo_orders"))
        .isInstanceOf(CdcConfigException.class)
        .hasMessageContaining("Capture instance 'dbo_orders' not found");
    assertThatThrownBy(() -> client.changes(new ChangeQuery(first, Lsn.ZERO, Lsn.MAX, List.of(), true, 1)))
        .isInstanceOf(CdcConfigException.class)
        .hasMessageContaining("Capture instance 'dbo_orders' not found");
    assertThat(dir.resolve("changes").toFile().list()).hasSize(0);
    assertThatThrownBy(() -> client.captureInstances("dbo_orders_v9"))
        .isInstanceOf(CdcConfigException.class)
        .hasMessage("MSSQL_CDC-112: Capture instance 'dbo_orders_v9' not found, or the login lacks SELECT on its source"
            + " columns (or membership in its gating role). Capture instances of what may be its table: orders_v2; if"
            + " 'dbo_orders_v9' was disabled, set captureInstance to the newer one.");
  }

  @Test
  void namesDifferingOnlyInCaseAreAmbiguous() {
    // the fake's catalog is case-sensitive, like a database with a _CS_ collation
    db.createTable("dbo", "items", "id int").key("id");
    db.enableCdc("dbo", "orders", "Sales");
    db.enableCdc("dbo", "items", "SALES");
    assertThat(client.captureInstances("Sales")).extracting(CaptureInstance::name).containsExactly("Sales");
    assertThatThrownBy(() -> db.enableCdc("dbo", "items", "Sales"))
        .isInstanceOf(CdcConfigException.class)
        .hasMessage("MSSQL_CDC-100: Could not create a capture instance because the capture instance name 'Sales'"
            + " already exists in the current database. Specify an explicit unique name for @capture_instance.");
    assertThatThrownBy(() -> client.captureInstances("sales"))
        .isInstanceOf(CdcConfigException.class)
        .hasMessage("MSSQL_CDC-113: Capture instance 'sales' matches 'SALES', 'Sales' ignoring case: pass the exact name.");
  }

  @Test
  void cleanupDropsMappingEntriesBelowTheLowestWatermark() {
    String a = db.enableCdc("dbo", "orders");
    Lsn l1 = db.commit(tx -> tx.insert("orders", row("order_id", 1)));
    Lsn l2 = db.commit(tx -> tx.insert("orders", row("order_id", 2)));
    db.cleanup(a, l2);
    assertThat(client.commitTime(l1)).isEmpty();
    assertThat(client.nthCommitAfter(Lsn.ZERO, 1)).contains(l2);
    assertThatThrownBy(() -> db.cleanup(a, l1))
        .isInstanceOf(CdcConfigException.class)
        .hasMessage("MSSQL_CDC-100: The specified @low_water_mark " + l1 + " for capture instance 'dbo_orders' is"
            + " below its current low water mark " + l2 + ": cleanup only moves it forward.");
  }

  @Test
  void aSecondWriterAndReopenedDatabaseSeeTheSameState() {
    db.enableCdc("dbo", "orders");
    try (FakeCdcDatabase other = FakeCdcDatabase.open(dir)) {
      other.commit(tx -> tx.insert("orders", row("order_id", 1)));
    }
    Lsn l2 = db.commit(tx -> tx.insert("orders", row("order_id", 2)));
    assertThat(rows("dbo_orders", Lsn.ZERO, l2, "order_id")).extracting(r -> r[3]).containsExactly(1, 2);
  }

  @Test
  void filesOfACommitThatDiedBeforeItsCommitPointAreInvisible() throws Exception {
    String ci = db.enableCdc("dbo", "orders");
    Lsn l1 = db.commit(tx -> tx.insert("orders", row("order_id", 1)));
    // what a writer killed mid-commit leaves: a half-written temp file and an unreferenced segment
    Files.writeString(dir.resolve("tmp").resolve("dead.tmp"), "half");
    Files.createDirectories(dir.resolve("changes/1"));
    Files.writeString(dir.resolve("changes/1/0000002A000001000021.seg"), "garbage");
    try (FakeCdcClient other = FakeCdcClient.open(dir)) {
      assertThat(other.maxLsn()).contains(l1);
      assertThat(rows(ci, Lsn.ZERO, Lsn.MAX, "order_id")).hasSize(1);
    }
    Lsn l2 = db.commit(tx -> tx.insert("orders", row("order_id", 2)));
    assertThat(rows(ci, Lsn.ZERO, l2, "order_id")).extracting(r -> r[3]).containsExactly(1, 2);
  }

  @Test
  void theProviderOpensTheFakeForBackendFake() {
    CdcReaderOptions options = CdcReaderOptions.parse(
        Map.of("captureInstance", "dbo_orders", "backend", "fake", "fakePath", dir.toString()),
        CdcReaderOptions.Reader.STREAM);
    try (CdcClient c = CdcClients.open(options)) {
      assertThat(c).isInstanceOf(FakeCdcClient.class);
      assertThat(c.maxLsn()).isEmpty();
      assertThat(c.sourceTimeZone()).isEqualTo("UTC");
    }
    Lsn l = db.idleAt(LocalDateTime.parse("2026-01-01T00:00:00"));
    CdcReaderOptions shipped = CdcReaderOptions.parse(Map.of("captureInstance", "dbo_orders", "backend", "fake",
        "fakePath", dir.toString(), "sourceTimeZone", "America/Sao_Paulo"), CdcReaderOptions.Reader.STREAM);
    try (CdcClient c = CdcClients.open(shipped)) {
      assertThat(c.sourceTimeZone()).isEqualTo("America/Sao_Paulo");
      assertThat(c.commitTime(l)).contains(Instant.parse("2026-01-01T03:00:00Z"));
      assertThatThrownBy(() -> c.preflight("dbo_nope"))
          .isInstanceOf(CdcConfigException.class)
          .hasMessageContaining("Capture instance 'dbo_nope' not found");
    }
    CdcReaderOptions windows = CdcReaderOptions.parse(Map.of("captureInstance", "dbo_orders", "backend", "fake",
        "fakePath", dir.toString(), "sourceTimeZone", "E. South America Standard Time"), CdcReaderOptions.Reader.STREAM);
    assertThatThrownBy(() -> CdcClients.open(windows))
        .isInstanceOf(CdcConfigException.class)
        .hasMessage("MSSQL_CDC-100: Invalid time zone 'E. South America Standard Time': use an IANA zone id such as"
            + " 'UTC' or 'America/Sao_Paulo', or a fixed offset such as 'UTC-03:00'.");
  }

  @Test
  void unknownNewerFormatsAndMissingDatabasesAreRefused() throws Exception {
    Files.writeString(dir.resolve("FORMAT"), "mssql-cdc-fake 2\n");
    assertThatThrownBy(() -> FakeCdcClient.open(dir))
        .isInstanceOf(CdcStateException.class)
        .hasMessage("MSSQL_CDC-600: Fake CDC database at " + dir.toAbsolutePath().normalize() + ": on-disk format"
            + " version 2 is newer than this library reads (up to 1): it was written by a newer mssql-cdc-fake."
            + " Upgrade the fake, or recreate the directory.");
    Path empty = Files.createDirectory(dir.resolve("empty"));
    assertThatThrownBy(() -> FakeCdcDatabase.open(empty))
        .isInstanceOf(CdcStateException.class)
        .hasMessage("MSSQL_CDC-600: Fake CDC database at " + empty.toAbsolutePath().normalize() + ": no fake CDC"
            + " database here (no FORMAT file). Create one with FakeCdcDatabase.create(dir), or fix fakePath.");
    assertThatThrownBy(() -> FakeCdcDatabase.create(dir))
        .isInstanceOf(CdcStateException.class)
        .hasMessageContaining("a fake CDC database already exists here");
  }
}
