package io.mssqlcdc.connector.stream;

import static io.mssqlcdc.fake.FakeRows.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.connector.CdcOffset;
import io.mssqlcdc.connector.FakeProbe;
import io.mssqlcdc.connector.SharedSpark;
import io.mssqlcdc.errors.CdcSourceUnavailableException;
import io.mssqlcdc.fake.FakeCdcDatabase;
import io.mssqlcdc.lsn.Lsn;
import io.mssqlcdc.options.CdcReaderOptions;
import java.nio.file.Path;
import java.time.Clock;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.connector.read.streaming.ReadLimit;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The stream's driver side called directly, over the fake: failures and offset checks. */
@Tag("spark")
class StreamDriverTest {
  @TempDir Path tmp;
  FakeCdcDatabase db;

  @BeforeEach
  void setUp() {
    db = FakeCdcDatabase.create(tmp.resolve("db"));
    db.createTable("dbo", "t", "id int").key("id");
    db.enableCdc("dbo", "t");
  }

  private Lsn insert(int id) {
    return db.commit(tx -> tx.insert("t", row("id", id)));
  }

  private CdcMicroBatchStream stream() {
    CdcReaderOptions o = CdcReaderOptions.parse(StreamRuns.options(db.path().toString(), "dbo_t"),
        CdcReaderOptions.Reader.STREAM);
    return new CdcMicroBatchStream(o, new StructType(), new StructType(), tmp.resolve("ckpt").toString(),
        new Configuration(), SharedSpark.spark().sparkContext(), Clock.systemUTC());
  }

  /**
   * Retries live in one layer only, the client's statement-level {@code DriverRetry} (covered by
   * core's {@code DriverRetryTest} and {@code SqlCdcClientTest}): a transient failure that outlived
   * them reaches the stream as {@link CdcSourceUnavailableException} and fails the call at once,
   * without a second round of retries on top.
   */
  @Test
  void aTransientFailureFromTheClientIsNotRetriedAgainByTheStream() {
    Lsn c1 = insert(0);
    try (FakeProbe probe = FakeProbe.on(db.path())) {
      CdcMicroBatchStream s = stream();
      CdcOffset start = (CdcOffset) s.initialOffset();
      int opened = probe.clientsOpened();

      probe.failNext("maxLsn", 2);
      assertThatThrownBy(() -> s.latestOffset(start, ReadLimit.allAvailable()))
          .isInstanceOf(CdcSourceUnavailableException.class).hasMessageContaining("Connection reset");
      assertThat(probe.failuresLeft("maxLsn")).as("one attempt, no stream-level retry").isEqualTo(1);
      assertThatThrownBy(s::prepareForTriggerAvailableNow).isInstanceOf(CdcSourceUnavailableException.class);
      assertThat(probe.failuresLeft("maxLsn")).isZero();

      CdcOffset end = (CdcOffset) s.latestOffset(start, ReadLimit.allAvailable());
      assertThat(end.lsn()).as("the next call works").isEqualTo(c1);
      assertThat(probe.clientsOpened() - opened).as("no client reopened by the stream").isZero();
      s.stop();
      assertThat(probe.clientsOpen()).as("stop closes the driver's client").isZero();
    }
  }

  /** Reference §9: a pre-2022 server's detected fixed offset is re-read for every batch with new commits. */
  @Test
  void aDetectedFixedOffsetIsReadAgainForEveryNewBatch() {
    db.serverTimeZone("UTC-03:00");
    insert(0);
    CdcMicroBatchStream s = stream();
    CdcOffset start = (CdcOffset) s.initialOffset();
    CdcOffset end = (CdcOffset) s.latestOffset(start, ReadLimit.allAvailable());
    assertThat(zoneOf(s.planInputPartitions(start, end))).isEqualTo("UTC-03:00");

    db.serverTimeZone("UTC-02:00"); // the server's clock moved (daylight saving)
    assertThat(s.latestOffset(end, ReadLimit.allAvailable())).as("idle poll").isEqualTo(end);
    insert(1);
    CdcOffset next = (CdcOffset) s.latestOffset(end, ReadLimit.allAvailable());
    assertThat(zoneOf(s.planInputPartitions(end, next))).isEqualTo("UTC-02:00");
    s.stop();
  }

  private static String zoneOf(org.apache.spark.sql.connector.read.InputPartition[] partitions) {
    assertThat(partitions).isNotEmpty();
    return ((CdcInputPartition) partitions[0]).options().sourceTimeZone();
  }

  @Test
  void offsetsOfAnotherTableOrFromTheReferenceAreCheckedOrRead() {
    Lsn c1 = insert(0);
    CdcMicroBatchStream s = stream();
    CdcOffset reference = (CdcOffset) s.deserializeOffset(
        "{\"lsn\": \"" + c1.decrement() + "\", \"commit_ts\": \"\"}");
    assertThat(((CdcOffset) s.latestOffset(reference, ReadLimit.allAvailable())).lsn())
        .as("the Python reference's offset resumes").isEqualTo(c1);
    CdcOffset other = CdcOffset.of(c1.decrement(), null, "dbo.customers");
    assertThatThrownBy(() -> s.latestOffset(other, ReadLimit.allAvailable()))
        .hasMessageContaining("The checkpoint's offsets belong to source 'dbo.customers', but this query reads 'dbo.t'")
        .hasMessageContaining("use a new checkpointLocation");
    assertThatThrownBy(() -> s.deserializeOffset("{\"lsn\": \"" + c1 + "\", \"v\": 2}"))
        .hasMessageContaining("format version 2");
    assertThatThrownBy(s::latestOffset).isInstanceOf(UnsupportedOperationException.class);
    s.stop();
  }
}
