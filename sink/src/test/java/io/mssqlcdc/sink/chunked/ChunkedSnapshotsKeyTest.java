package io.mssqlcdc.sink.chunked;

import static org.assertj.core.api.Assertions.assertThat;

import io.mssqlcdc.client.TableRef;
import io.mssqlcdc.fake.FakeCdcClient;
import io.mssqlcdc.fake.FakeCdcDatabase;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 26 item 9: the key's captured types come from the resolved capture instance; the fake,
 * like SQL Server, answers sys.sp_cdc_get_captured_columns only for an instance's exact name.
 */
class ChunkedSnapshotsKeyTest {
  @TempDir
  Path dir;

  @Test
  void aSwitchedInstanceIsReadUnderItsResolvedName() {
    FakeCdcDatabase db = FakeCdcDatabase.create(dir);
    db.createTable("dbo", "orders", "order_id int", "status varchar(20)").key("order_id");
    String first = db.enableCdc("dbo", "orders");
    db.enableCdc("dbo", "orders", "dbo_orders_v2");
    db.disableCdc(first);
    FakeCdcClient client = db.client();

    ChunkedSnapshots.Key key = ChunkedSnapshots.key(client, "dbo_orders");

    assertThat(key.names()).containsExactly("order_id");
    assertThat(key.types()).extracting(t -> t.declaration()).containsExactly("int");
    assertThat(key.table()).isEqualTo(new TableRef("dbo", "orders"));
  }

  @Test
  void aCaseDifferentConfiguredNameIsReadUnderTheInstanceName() {
    FakeCdcDatabase db = FakeCdcDatabase.create(dir);
    db.createTable("dbo", "orders", "order_id int", "status varchar(20)").key("order_id");
    db.enableCdc("dbo", "orders");

    ChunkedSnapshots.Key key = ChunkedSnapshots.key(db.client(), "DBO_Orders");

    assertThat(key.types()).extracting(t -> t.declaration()).containsExactly("int");
    assertThat(key.bindable()).isTrue();
  }
}
