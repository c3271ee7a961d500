package io.mssqlcdc.connector.stream;

import static io.mssqlcdc.fake.FakeRows.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.mssqlcdc.connector.CdcOffset;
import io.mssqlcdc.connector.SharedSpark;
import io.mssqlcdc.fake.FakeCdcDatabase;
import io.mssqlcdc.lsn.Lsn;
import io.mssqlcdc.options.CdcReaderOptions;
import java.nio.file.Path;
import java.time.Clock;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code reportLatestOffset} names the source's {@code max_lsn} even before the stream's first
 * {@code latestOffset} (issue 8, defect 11). (Spark 4.2's {@code MicroBatchExecution} asks for it
 * right after {@code latestOffset}; the contract holds for any caller.)
 */
@Tag("spark")
class ReportLatestOffsetTest {
  @TempDir Path tmp;
  FakeCdcDatabase db;

  @BeforeEach
  void setUp() {
    db = FakeCdcDatabase.create(tmp.resolve("db"));
    db.createTable("dbo", "orders", "order_id int", "status varchar(20)").key("order_id");
    db.enableCdc("dbo", "orders");
  }

  private Lsn insert(int id) {
    return db.commit(tx -> tx.insert("orders", row("order_id", id, "status", "new")));
  }

  private CdcMicroBatchStream stream() {
    CdcReaderOptions o = CdcReaderOptions.parse(StreamRuns.options(db.path().toString(), "dbo_orders",
        "numPartitions", "1"), CdcReaderOptions.Reader.STREAM);
    return new CdcMicroBatchStream(o, new StructType(), new StructType(), tmp.resolve("ckpt").toString(),
        new Configuration(), SharedSpark.spark().sparkContext(), Clock.systemUTC());
  }

  @Test
  void beforeTheFirstLatestOffsetItReadsMaxLsn() {
    insert(1);
    Lsn max = db.idle();
    CdcMicroBatchStream s = stream();
    try {
      CdcOffset reported = (CdcOffset) s.reportLatestOffset();
      assertThat(reported).isNotNull();
      assertThat(reported.lsn()).isEqualTo(max);
      assertThat(reported.source()).contains("dbo.orders");
      assertThat(reported.commitTs()).isPresent();
    } finally {
      s.stop();
    }
  }
}
