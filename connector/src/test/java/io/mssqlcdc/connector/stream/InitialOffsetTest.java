package io.mssqlcdc.connector.stream;

import static io.mssqlcdc.fake.FakeRows.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.connector.CdcOffset;
import io.mssqlcdc.connector.SharedSpark;
import io.mssqlcdc.fake.FakeCdcDatabase;
import io.mssqlcdc.lsn.Lsn;
import io.mssqlcdc.options.CdcReaderOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The initial offset: resolved once, persisted under the checkpoint, stable across restarts. */
@Tag("spark")
class InitialOffsetTest {
  @TempDir Path tmp;

  private CdcMicroBatchStream stream(FakeCdcDatabase db, String checkpoint, String startingLsn) {
    CdcReaderOptions o = CdcReaderOptions.parse(StreamRuns.options(db.path().toString(), "dbo_orders",
        "startingLsn", startingLsn), CdcReaderOptions.Reader.STREAM);
    return new CdcMicroBatchStream(o, new StructType(), new StructType(), checkpoint, new Configuration(),
        SharedSpark.spark().sparkContext(), Clock.systemUTC());
  }

  @Test
  void latestIsResolvedOnceAndStableAcrossARestartBeforeTheFirstCommit() throws Exception {
    FakeCdcDatabase db = FakeCdcDatabase.create(tmp.resolve("db"));
    db.createTable("dbo", "orders", "order_id int").key("order_id");
    db.enableCdc("dbo", "orders");
    Lsn first = db.commit(tx -> tx.insert("orders", row("order_id", 1)));
    String ckpt = tmp.resolve("ckpt/sources/0").toString();
    CdcOffset o1 = (CdcOffset) stream(db, ckpt, "latest").initialOffset();
    assertThat(o1.lsn()).isEqualTo(first);
    assertThat(o1.source()).contains("dbo.orders");
    db.commit(tx -> tx.insert("orders", row("order_id", 2)));
    CdcOffset o2 = (CdcOffset) stream(db, ckpt, "latest").initialOffset();
    assertThat(o2).isEqualTo(o1);
    assertThat(Files.readAllLines(Path.of(ckpt, InitialOffsetStore.FILE)))
        .containsExactly("v1", o1.json());
  }

  @Test
  void aDamagedInitialOffsetFileFailsNamingItAndWhatToDo() throws Exception {
    FakeCdcDatabase db = FakeCdcDatabase.create(tmp.resolve("db"));
    db.createTable("dbo", "orders", "order_id int").key("order_id");
    db.enableCdc("dbo", "orders");
    Path dir = tmp.resolve("ckpt/sources/0");
    Files.createDirectories(dir);
    Files.writeString(dir.resolve(InitialOffsetStore.FILE), "v9\n{}\n");
    assertThatThrownBy(() -> stream(db, dir.toString(), "earliest").initialOffset())
        .hasMessageContaining("Cannot read the stream's initial offset from")
        .hasMessageContaining("line 1 is 'v9', not 'v1'")
        .hasMessageContaining("use a new checkpointLocation");
  }
}
