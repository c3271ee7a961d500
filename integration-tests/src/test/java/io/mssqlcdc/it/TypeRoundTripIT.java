package io.mssqlcdc.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.mssqlcdc.client.CapturedColumn;
import io.mssqlcdc.lsn.Lsn;
import io.mssqlcdc.types.TypeMapping;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Every type of the default mapping (reference §4.1) written on SQL Server and read back through the change table. */
class TypeRoundTripIT {

  @Test
  void everyMappedTypeRoundTrips() {
    ItServer server = ItServer.get();
    String table = ItTables.unique("types");
    server.exec("CREATE TABLE dbo.[" + table + "] (id INT NOT NULL PRIMARY KEY, c_bit BIT, c_tinyint TINYINT,"
        + " c_smallint SMALLINT, c_int INT, c_bigint BIGINT, c_real REAL, c_float FLOAT, c_decimal DECIMAL(18,4),"
        + " c_numeric NUMERIC(10,2), c_money MONEY, c_smallmoney SMALLMONEY, c_date DATE, c_datetime DATETIME,"
        + " c_datetime2 DATETIME2(7), c_smalldatetime SMALLDATETIME, c_dto DATETIMEOFFSET(3), c_time TIME(7),"
        + " c_char CHAR(3), c_varchar VARCHAR(20), c_nchar NCHAR(3), c_nvarchar NVARCHAR(MAX), c_text TEXT,"
        + " c_ntext NTEXT, c_xml XML, c_guid UNIQUEIDENTIFIER, c_binary BINARY(2), c_varbinary VARBINARY(MAX),"
        + " c_image IMAGE, c_rowversion ROWVERSION, c_null INT NULL)");
    server.exec("EXEC sys.sp_cdc_enable_table @source_schema = N'dbo', @source_name = ?, @role_name = NULL", table);
    String ci = "dbo_" + table;
    await("instance ready").atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(250))
        .until(() -> !"0x00000000000000000000".equals(server.scalar("SELECT CONVERT(varchar(22), sys.fn_cdc_get_min_lsn(?), 1)", ci)));
    server.exec("INSERT INTO dbo.[" + table + "] (id, c_bit, c_tinyint, c_smallint, c_int, c_bigint, c_real, c_float,"
        + " c_decimal, c_numeric, c_money, c_smallmoney, c_date, c_datetime, c_datetime2, c_smalldatetime, c_dto, c_time,"
        + " c_char, c_varchar, c_nchar, c_nvarchar, c_text, c_ntext, c_xml, c_guid, c_binary, c_varbinary, c_image)"
        + " VALUES (1, 1, 255, -32768, 2147483647, 9223372036854775807, 1.5, 2.25, 12345.6789, 12345678.91,"
        + " 922337203685477.5807, 214748.3647, '2026-03-01', '2026-03-01T10:20:30.123', '2026-03-01T10:20:30.1234567',"
        + " '2026-03-01T10:20:00', '2026-03-01T10:20:30.123-03:00', '13:50:01.1234567', 'abc', 'v\u00e1rchar', N'\u00f1\u00e7',"
        + " N'nvarchar max \u2713', 'text', N'ntext', '<a>1</a>', '6f9619ff-8b86-d011-b42d-00c04fc964ff', 0x0AFF,"
        + " 0x00010203, 0xCAFE)");
    String[] lsn = new String[1];
    await("insert captured").atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(250))
        .until(() -> (lsn[0] = server.scalar("SELECT CONVERT(varchar(22), MAX([__$start_lsn]), 1) FROM cdc.[" + ci + "_CT]")) != null);

    Map<String, Object> expected = new LinkedHashMap<>();
    expected.put("c_bit", true);
    expected.put("c_tinyint", (short) 255);
    expected.put("c_smallint", (short) -32768);
    expected.put("c_int", 2147483647);
    expected.put("c_bigint", Long.MAX_VALUE);
    expected.put("c_real", 1.5f);
    expected.put("c_float", 2.25d);
    expected.put("c_decimal", new BigDecimal("12345.6789"));
    expected.put("c_numeric", new BigDecimal("12345678.91"));
    expected.put("c_money", new BigDecimal("922337203685477.5807"));
    expected.put("c_smallmoney", new BigDecimal("214748.3647"));
    expected.put("c_date", LocalDate.of(2026, 3, 1));
    expected.put("c_datetime", LocalDateTime.of(2026, 3, 1, 10, 20, 30, 123_000_000));
    expected.put("c_datetime2", LocalDateTime.of(2026, 3, 1, 10, 20, 30, 123_456_700));
    expected.put("c_smalldatetime", LocalDateTime.of(2026, 3, 1, 10, 20));
    expected.put("c_dto", OffsetDateTime.of(2026, 3, 1, 10, 20, 30, 123_000_000, ZoneOffset.ofHours(-3)));
    expected.put("c_time", "13:50:01.123456700"); // the reference's form (docs/decisions/0004-time-text.md)
    expected.put("c_char", "abc");
    expected.put("c_varchar", "v\u00e1rchar");
    expected.put("c_nchar", "\u00f1\u00e7 ");
    expected.put("c_nvarchar", "nvarchar max \u2713");
    expected.put("c_text", "text");
    expected.put("c_ntext", "ntext");
    expected.put("c_xml", "<a>1</a>");
    expected.put("c_guid", "6F9619FF-8B86-D011-B42D-00C04FC964FF");
    expected.put("c_binary", new byte[] {0x0A, (byte) 0xFF});
    expected.put("c_varbinary", new byte[] {0, 1, 2, 3});
    expected.put("c_image", new byte[] {(byte) 0xCA, (byte) 0xFE});
    expected.put("c_null", null);

    try (SqlServerContractHistory h = new SqlServerContractHistory(server)) {
      List<CapturedColumn> captured = h.client().capturedColumns(ci);
      for (CapturedColumn c : captured) {
        assertThat(TypeMapping.sparkType(c.type())).as("mapping of %s %s", c.name(), c.type()).isPresent();
      }
      List<String> columns = new java.util.ArrayList<>(expected.keySet());
      columns.add("c_rowversion");
      columns.add("not_captured");
      Lsn l = Lsn.parse(lsn[0]);
      ItTables.Change row = ItTables.readAll(h.client(), ci, l, l, columns, true).get(0);
      int i = 0;
      for (Map.Entry<String, Object> e : expected.entrySet()) {
        assertThat(row.values().get(i++)).as(e.getKey()).isEqualTo(e.getValue());
      }
      assertThat((byte[]) row.values().get(i++)).as("c_rowversion").hasSize(8);
      assertThat(row.values().get(i)).as("a column the instance does not capture").isNull();
    }
  }
}
