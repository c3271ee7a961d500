package io.mssqlcdc.standin;

import static org.assertj.core.api.Assertions.assertThat;

import io.mssqlcdc.client.CapturedColumn;
import io.mssqlcdc.client.ChangeCursor;
import io.mssqlcdc.client.ChangeQuery;
import io.mssqlcdc.client.KeyRange;
import io.mssqlcdc.client.RowCursor;
import io.mssqlcdc.client.TableQuery;
import io.mssqlcdc.client.TableRef;
import io.mssqlcdc.client.jdbc.SqlCdcClient;
import io.mssqlcdc.fake.FakeCdcDatabase;
import io.mssqlcdc.lsn.Lsn;
import io.mssqlcdc.types.TypeMapping;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every type of the default mapping (reference §4.1) through the real driver: the stand-in sends
 * each as SQL Server does (TYPE_INFO, value encoding, PLP for max types, padding of fixed
 * lengths), mssql-jdbc decodes it, {@code JdbcValues} reads it. The expected values are literals:
 * what the integration test {@code TypeRoundTripIT} expects from a real SQL Server.
 */
class TypeRoundTripTest {
  @TempDir Path dir;
  FakeCdcDatabase db;
  SqlServerStandIn standIn;
  SqlCdcClient client;

  static final String[] COLUMNS = {
      "id int", "c_bit bit", "c_tinyint tinyint", "c_smallint smallint", "c_int int", "c_bigint bigint", "c_real real",
      "c_float float", "c_decimal decimal(18,4)", "c_numeric numeric(10,2)", "c_money money", "c_smallmoney smallmoney",
      "c_date date", "c_datetime datetime", "c_datetime2 datetime2(7)", "c_smalldatetime smalldatetime",
      "c_dto datetimeoffset(3)", "c_time time(7)", "c_char char(5)", "c_varchar varchar(20)", "c_nchar nchar(3)",
      "c_nvarchar nvarchar(max)", "c_text text", "c_ntext ntext", "c_xml xml", "c_guid uniqueidentifier",
      "c_binary binary(4)", "c_varbinary varbinary(max)", "c_image image", "c_rowversion rowversion", "c_big decimal(38,10)",
      "c_time0 time(0)", "c_dt2_3 datetime2(3)"};

  /** What SQL Server returns for the row written by {@link #written()} (binary(4) and char(5) padded, nchar(3) too). */
  static Map<String, Object> expected() {
    Map<String, Object> e = new LinkedHashMap<>();
    e.put("c_bit", true);
    e.put("c_tinyint", (short) 255);
    e.put("c_smallint", (short) -32768);
    e.put("c_int", 2147483647);
    e.put("c_bigint", Long.MIN_VALUE);
    e.put("c_real", 1.5f);
    e.put("c_float", -2.25e300d);
    e.put("c_decimal", new BigDecimal("-12345.6789"));
    e.put("c_numeric", new BigDecimal("12345678.91"));
    e.put("c_money", new BigDecimal("-922337203685477.5808"));
    e.put("c_smallmoney", new BigDecimal("214748.3647"));
    e.put("c_date", LocalDate.of(1, 1, 1));
    e.put("c_datetime", LocalDateTime.of(2026, 3, 1, 10, 20, 30, 123_000_000));
    e.put("c_datetime2", LocalDateTime.of(9999, 12, 31, 23, 59, 59, 999_999_900));
    e.put("c_smalldatetime", LocalDateTime.of(2026, 3, 1, 10, 20));
    e.put("c_dto", OffsetDateTime.of(2026, 3, 1, 10, 20, 30, 123_000_000, ZoneOffset.ofHoursMinutes(5, 45)));
    e.put("c_time", "13:50:01.123456700"); // the reference's form (docs/decisions/0004-time-text.md)
    e.put("c_char", "ab   ");
    e.put("c_varchar", "v\u00e1rchar");
    e.put("c_nchar", "\u00f1\u00e7 ");
    e.put("c_nvarchar", "nvarchar max \u2713 " + "x".repeat(9000));
    e.put("c_text", "text \u00e9");
    e.put("c_ntext", "ntext \u2713");
    e.put("c_xml", "<a>1</a>");
    e.put("c_guid", "6F9619FF-8B86-D011-B42D-00C04FC964FF");
    e.put("c_binary", new byte[] {0x0A, (byte) 0xFF, 0, 0});
    byte[] big = new byte[20_000];
    for (int i = 0; i < big.length; i++) {
      big[i] = (byte) i;
    }
    e.put("c_varbinary", big);
    e.put("c_image", new byte[] {(byte) 0xCA, (byte) 0xFE});
    e.put("c_rowversion", new byte[] {0, 0, 0, 0, 0, 0, 0x07, (byte) 0xD1});
    e.put("c_big", new BigDecimal("-1234567890123456789012345678.0123456789"));
    e.put("c_time0", "23:59:59.000000000");
    e.put("c_dt2_3", LocalDateTime.of(2026, 3, 1, 0, 0, 0, 7_000_000));
    return e;
  }

  /** The values the script writes (the fake coerces them to the column types). */
  static Map<String, Object> written() {
    Map<String, Object> w = new LinkedHashMap<>(expected());
    w.put("c_char", "ab");
    w.put("c_nchar", "\u00f1\u00e7");
    w.put("c_binary", new byte[] {0x0A, (byte) 0xFF});
    w.put("c_guid", "6f9619ff-8b86-d011-b42d-00c04fc964ff");
    return w;
  }

  @BeforeEach
  void setUp() {
    db = FakeCdcDatabase.create(dir);
    db.createTable("dbo", "types", COLUMNS).key("id");
    db.enableCdc("dbo", "types");
    standIn = SqlServerStandIn.start(dir);
    client = StandInClients.open(standIn, "");
  }

  @AfterEach
  void tearDown() {
    client.close();
    standIn.close();
    db.close();
  }

  private Lsn insert(int id, Map<String, Object> values) {
    Map<String, Object> row = new LinkedHashMap<>();
    row.put("id", id);
    row.putAll(values);
    return db.commit(tx -> tx.insert("dbo.types", row));
  }

  private static List<String> names() {
    return new ArrayList<>(expected().keySet());
  }

  private List<Object> change(Lsn lsn, List<String> columns) {
    try (ChangeCursor c = client.changes(new ChangeQuery("dbo_types", lsn, lsn, columns, true, 100))) {
      assertThat(c.next()).isTrue();
      List<Object> values = new ArrayList<>();
      for (int i = 0; i < columns.size(); i++) {
        values.add(c.value(i));
      }
      assertThat(c.next()).isFalse();
      return values;
    }
  }

  private static void assertValues(List<Object> actual, List<String> names, Map<String, Object> expected) {
    for (int i = 0; i < names.size(); i++) {
      Object want = expected.get(names.get(i));
      Object got = actual.get(i);
      if (want instanceof byte[] b) {
        assertThat((byte[]) got).as(names.get(i)).isEqualTo(b);
      } else {
        assertThat(got).as(names.get(i)).isEqualTo(want);
      }
    }
  }

  @Test
  void everyMappedTypeRoundTripsThroughTheChangeTable() {
    Lsn lsn = insert(1, written());
    List<CapturedColumn> captured = client.capturedColumns("dbo_types");
    assertThat(captured).extracting(c -> c.type().declaration()).containsExactly(Arrays.stream(COLUMNS)
        .map(d -> d.substring(d.indexOf(' ') + 1).replace("rowversion", "timestamp")).toArray(String[]::new));
    for (CapturedColumn c : captured) {
      assertThat(TypeMapping.sparkType(c.type())).as("mapping of %s %s", c.name(), c.type()).isPresent();
    }
    List<String> names = names();
    names.add("not_captured");
    List<Object> values = change(lsn, names);
    assertValues(values, names(), expected());
    assertThat(values.get(names.size() - 1)).as("a column the instance does not capture").isNull();
  }

  @Test
  void everyTypeReadsNullAsNull() {
    Lsn lsn = insert(2, Map.of());
    List<Object> values = change(lsn, names());
    for (int i = 0; i < values.size(); i++) {
      if (!names().get(i).equals("c_rowversion")) {
        assertThat(values.get(i)).as(names().get(i)).isNull();
      }
    }
  }

  @Test
  void everyMappedTypeRoundTripsThroughTheSourceTable() {
    insert(1, written());
    List<String> names = names();
    try (RowCursor rows = client.readTable(new TableQuery(new TableRef("dbo", "types"), names, List.of("id"), KeyRange.ALL,
        TableQuery.Isolation.READ_COMMITTED, -1, 100))) {
      assertThat(rows.next()).isTrue();
      List<Object> values = new ArrayList<>();
      for (int i = 0; i < names.size(); i++) {
        values.add(rows.value(i));
      }
      assertValues(values, names, expected());
      assertThat(rows.next()).isFalse();
    }
  }
}
