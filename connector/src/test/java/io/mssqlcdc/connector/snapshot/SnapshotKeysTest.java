package io.mssqlcdc.connector.snapshot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.errors.CdcConfigException;
import org.junit.jupiter.api.Test;

class SnapshotKeysTest {

  @Test
  void parsesNames() {
    assertThat(SnapshotKeys.parse("[\"region\", \"order id\"]")).containsExactly("region", "order id");
  }

  @Test
  void rejectsWhatIsNoListOfNames() {
    assertThatThrownBy(() -> SnapshotKeys.parse("order_id"))
        .isInstanceOf(CdcConfigException.class)
        .hasMessage("MSSQL_CDC-100: Option 'snapshotKeys' must be a non-empty JSON list of column names such as"
            + " [\"order_id\"], not 'order_id'. It is not JSON.");
    assertThatThrownBy(() -> SnapshotKeys.parse("[]"))
        .hasMessageContaining("must be a non-empty JSON list of column names such as [\"order_id\"], not '[]'.");
    assertThatThrownBy(() -> SnapshotKeys.parse("[1]")).hasMessageEndingWith("The entry 1 is not a string.");
    assertThatThrownBy(() -> SnapshotKeys.parse("[\"a\", \"A\"]"))
        .hasMessageEndingWith("The column 'A' is listed twice.");
    assertThatThrownBy(() -> SnapshotKeys.parse("[\"\"]")).hasMessageContaining("Invalid column ''");
  }
}
