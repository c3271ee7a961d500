package io.mssqlcdc.connector.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.connector.CdcOffset;
import io.mssqlcdc.connector.SharedSpark;
import io.mssqlcdc.errors.CdcSourceUnavailableException;
import io.mssqlcdc.lsn.Lsn;
import io.mssqlcdc.options.CdcReaderOptions;
import java.nio.file.Path;
import java.time.Clock;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.connector.read.streaming.ReadLimit;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The stream's driver side called directly: failures and offset checks. */
class StreamDriverTest {
  @TempDir Path tmp;

  private CdcMicroBatchStream stream(MemoryCdc db) {
    CdcReaderOptions o = CdcReaderOptions.parse(StreamRuns.options(db, "dbo_t"), CdcReaderOptions.Reader.STREAM);
    return new CdcMicroBatchStream(o, new StructType(), new StructType(), tmp.toString(), new Configuration(),
        SharedSpark.spark().sparkContext(), Clock.systemUTC());
  }

  /**
   * Retries live in one layer only, the client's statement-level {@code DriverRetry} (covered by
   * core's {@code DriverRetryTest} and {@code SqlCdcClientTest}): a transient failure that outlived
   * them reaches the stream as {@link CdcSourceUnavailableException} and fails the call at once,
   * without a second round of retries on top.
   */
  @Test
  void aTransientFailureFromTheClientIsNotRetriedAgainByTheStream() {
    MemoryCdc db = MemoryCdc.create();
    db.enable("dbo_t", "t", MemoryCdc.col("id", 1, "int"));
    Lsn c1 = db.inserts("t", 0, 1);
    CdcMicroBatchStream s = stream(db);
    CdcOffset start = (CdcOffset) s.initialOffset();
    int opened = MemoryCdcClient.OPENED.get();

    db.transientFailures.set(2);
    assertThatThrownBy(() -> s.latestOffset(start, ReadLimit.allAvailable()))
        .isInstanceOf(CdcSourceUnavailableException.class).hasMessageContaining("Connection reset");
    assertThat(db.transientFailures.get()).as("one attempt, no stream-level retry").isEqualTo(1);
    assertThatThrownBy(s::prepareForTriggerAvailableNow).isInstanceOf(CdcSourceUnavailableException.class);
    assertThat(db.transientFailures.get()).isZero();

    CdcOffset end = (CdcOffset) s.latestOffset(start, ReadLimit.allAvailable());
    assertThat(end.lsn()).as("the next call works").isEqualTo(c1);
    assertThat(MemoryCdcClient.OPENED.get() - opened).as("no client reopened by the stream").isZero();
    s.stop();
  }

  /** Reference §9: a pre-2022 server's detected fixed offset is re-read for every batch with new commits. */
  @Test
  void aDetectedFixedOffsetIsReadAgainForEveryNewBatch() {
    MemoryCdc db = MemoryCdc.create(java.time.ZoneId.of("UTC-03:00"));
    db.enable("dbo_t", "t", MemoryCdc.col("id", 1, "int"));
    db.inserts("t", 0, 1);
    CdcMicroBatchStream s = stream(db);
    CdcOffset start = (CdcOffset) s.initialOffset();
    CdcOffset end = (CdcOffset) s.latestOffset(start, ReadLimit.allAvailable());
    assertThat(zoneOf(s.planInputPartitions(start, end))).isEqualTo("UTC-03:00");

    db.serverZone = java.time.ZoneId.of("UTC-02:00"); // the server's clock moved (daylight saving)
    assertThat(s.latestOffset(end, ReadLimit.allAvailable())).as("idle poll").isEqualTo(end);
    db.inserts("t", 1, 1);
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
    MemoryCdc db = MemoryCdc.create();
    db.enable("dbo_t", "t", MemoryCdc.col("id", 1, "int"));
    Lsn c1 = db.inserts("t", 0, 1);
    CdcMicroBatchStream s = stream(db);
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
