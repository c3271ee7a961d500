package io.mssqlcdc.errors;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.ByteArrayInputStream;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SecretsTest {

  @Test
  void masksJdbcAndOdbcPasswords() {
    assertThat(Secrets.redact("jdbc:sqlserver://h:1433;databaseName=db;user=u;password=s3cret;encrypt=true"))
        .isEqualTo("jdbc:sqlserver://h:1433;databaseName=db;user=u;password=***;encrypt=true");
    assertThat(Secrets.redact("Server=h,1433;Database=db;UID=u;PWD=s3cret;Encrypt=yes"))
        .isEqualTo("Server=h,1433;Database=db;UID=u;PWD=***;Encrypt=yes");
    assertThat(Secrets.redact("Server=h;PWD={a;b}}c};Encrypt=yes")).isEqualTo("Server=h;PWD=***;Encrypt=yes");
    assertThat(Secrets.redact("Password = x y z")).isEqualTo("Password = ***");
    assertThat(Secrets.redact("nothing secret here")).isEqualTo("nothing secret here");
  }

  @Test
  void exceptionMessagesAreRedacted() {
    CdcConfigException e = new CdcConfigException(CdcErrorCode.INVALID_OPTION, "bad: Server=h;PWD=hunter2");
    assertThat(e.getMessage()).doesNotContain("hunter2").contains("PWD=***").startsWith("MSSQL_CDC-100: ");
  }

  @Test
  void exceptionsSurviveJavaSerialization() throws Exception {
    CdcDataLossException e = CdcErrors.dataLoss("dbo_orders", "0x01", "0x02", java.util.List.of());
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(e);
    }
    try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      CdcDataLossException back = (CdcDataLossException) in.readObject();
      assertThat(back.code()).isEqualTo(CdcErrorCode.DATA_LOSS);
      assertThat(back.getMessage()).isEqualTo(e.getMessage());
    }
  }

  @Test
  void errorCodesAreUnique() {
    Set<Integer> numbers = new HashSet<>();
    for (CdcErrorCode c : EnumSet.allOf(CdcErrorCode.class)) {
      assertThat(numbers.add(c.number())).as("code %s reuses %d", c, c.number()).isTrue();
    }
  }

  @Test
  void dataLossMessageNamesInstanceLsnsAndWhatToDo() {
    assertThat(CdcErrors.dataLoss("dbo_orders", "0x0000002A000001000011", "0x0000002A000001000051",
            java.util.List.of("dbo_orders_old")).getMessage())
        .isEqualTo("MSSQL_CDC-200: dbo_orders: change data from 0x0000002A000001000011 is gone (min_lsn is now"
            + " 0x0000002A000001000051): purged by CDC cleanup, or held only by capture instance(s)"
            + " 'dbo_orders_old', disabled before the stream read them. A re-snapshot is required. Set"
            + " failOnDataLoss=false to skip ahead (loses changes).");
  }
}
