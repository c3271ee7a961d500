package io.mssqlcdc.client.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.client.CaptureInstance;
import io.mssqlcdc.errors.CdcConfigException;
import io.mssqlcdc.lsn.Lsn;
import java.time.LocalDateTime;
import java.util.List;
import org.junit.jupiter.api.Test;

class CaptureInstanceResolverTest {
  private static final CaptureInstance V1 = ci("dbo_orders", "dbo", "orders", 10, "2026-01-01T00:00");
  private static final CaptureInstance V2 = ci("dbo_orders_v2", "dbo", "orders", 20, "2026-02-01T00:00");
  private static final CaptureInstance OTHER = ci("sales_Items", "sales", "Items", 5, "2025-01-01T00:00");

  @Test
  void exactNameThenIgnoringCaseOldestFirst() {
    assertThat(CaptureInstanceResolver.resolve("dbo_orders_v2", List.of(V2, OTHER, V1))).contains(List.of(V1, V2));
    assertThat(CaptureInstanceResolver.resolve("SALES_items", List.of(V2, OTHER, V1))).contains(List.of(OTHER));
  }

  @Test
  void twoCaseInsensitiveMatchesAskForTheExactName() {
    CaptureInstance upper = ci("DBO_ORDERS", "dbo", "ORDERS", 30, "2026-03-01T00:00");
    assertThatThrownBy(() -> CaptureInstanceResolver.resolve("Dbo_Orders", List.of(V1, upper)))
        .isInstanceOf(CdcConfigException.class)
        .hasMessageContaining("matches 'dbo_orders', 'DBO_ORDERS' ignoring case: pass the exact name");
    assertThat(CaptureInstanceResolver.resolve("DBO_ORDERS", List.of(V1, upper))).contains(List.of(upper));
  }

  @Test
  void aDisabledDefaultNameResolvesThroughItsTable() {
    assertThat(CaptureInstanceResolver.resolve("dbo_orders", List.of(V2, OTHER))).contains(List.of(V2));
    assertThat(CaptureInstanceResolver.resolve("dbo_gone", List.of(V2, OTHER))).isEmpty();
    assertThat(CaptureInstanceResolver.candidates("dbo_orders_v3", List.of(V1, V2, OTHER)))
        .containsExactly("dbo_orders", "dbo_orders_v2");
  }

  @Test
  void indexColumnListIsUnquoted() {
    assertThat(CaptureInstanceResolver.indexColumns("[order_id], [line]]no], [a b]"))
        .containsExactly("order_id", "line]no", "a b");
    assertThat(CaptureInstanceResolver.indexColumns(null)).isEmpty();
  }

  private static CaptureInstance ci(String name, String schema, String table, int lsn, String created) {
    return new CaptureInstance(name, schema, table, Lsn.of(0, lsn), List.of("id"), LocalDateTime.parse(created));
  }
}
