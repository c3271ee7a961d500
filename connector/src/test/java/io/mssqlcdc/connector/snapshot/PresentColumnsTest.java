package io.mssqlcdc.connector.snapshot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.client.CapturedColumn;
import io.mssqlcdc.client.TableColumn;
import io.mssqlcdc.errors.CdcConfigException;
import io.mssqlcdc.types.SqlServerType;
import java.util.List;
import org.junit.jupiter.api.Test;

class PresentColumnsTest {
  private static final SqlServerType INT = SqlServerType.of("int");

  private static CapturedColumn cap(String name, int ordinal, int id, boolean computed) {
    return new CapturedColumn(name, ordinal, id, INT, computed);
  }

  private static TableColumn col(String name, int id, boolean computed) {
    return new TableColumn(name, id, computed, null);
  }

  @Test
  void readsPresentColumnsAndNullsTheRest() {
    List<CapturedColumn> captured = List.of(
        cap("id", 1, 1, false), cap("gone", 2, 2, false), cap("total", 3, 3, true), cap("Name", 4, 4, false));
    List<TableColumn> table = List.of(col("id", 1, false), col("total", 3, true), col("name", 4, false));

    PresentColumns p = PresentColumns.resolve(
        List.of("id", "gone", "total", "NAME"), List.of("dbo_t"), List.of(captured), table);

    assertThat(p.read()).containsExactly("id", "name");
    assertThat(p.source()).containsExactly(0, -1, -1, 1);
    assertThat(p.absent()).containsExactly("gone");
    assertThat(p.computed()).containsExactly("total");
  }

  @Test
  void aColumnDroppedAndReAddedUnderTheSameNameIsAnotherColumn() {
    List<CapturedColumn> captured = List.of(cap("id", 1, 1, false), cap("note", 2, 2, false));
    List<TableColumn> table = List.of(col("id", 1, false), col("note", 5, false));

    PresentColumns p = PresentColumns.resolve(List.of("id", "note"), List.of("dbo_t"), List.of(captured), table);

    assertThat(p.read()).containsExactly("id");
    assertThat(p.absent()).containsExactly("note");
  }

  @Test
  void aNewerInstanceCapturingTheReAddedColumnReadsIt() {
    List<CapturedColumn> older = List.of(cap("id", 1, 1, false), cap("note", 2, 2, false));
    List<CapturedColumn> newer = List.of(cap("id", 1, 1, false), cap("note", 2, 5, false));
    List<TableColumn> table = List.of(col("id", 1, false), col("note", 5, false));

    PresentColumns p = PresentColumns.resolve(
        List.of("id", "note"), List.of("dbo_t", "dbo_t_v2"), List.of(newer, older), table);

    assertThat(p.read()).containsExactly("id", "note");
    assertThat(p.absent()).isEmpty();
  }

  @Test
  void aDeclaredColumnNoInstanceCapturesFails() {
    assertThatThrownBy(() -> PresentColumns.resolve(List.of("id", "extra"), List.of("dbo_t"),
        List.of(List.of(cap("id", 1, 1, false))), List.of(col("id", 1, false))))
        .isInstanceOf(CdcConfigException.class)
        .hasMessage("MSSQL_CDC-111: No capture instance of the table (dbo_t) captures extra: fix 'columns', or"
            + " capture them with a new capture instance (sql/switch_capture_instance.sql).");
  }
}
