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
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.connector.read.streaming.ReadLimit;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The stream's driver side called directly: retries and offset checks. */
class StreamDriverTest {
  @TempDir Path tmp;

  private CdcMicroBatchStream stream(MemoryCdc db, List<Long> slept) {
    CdcReaderOptions o = CdcReaderOptions.parse(StreamRuns.options(db, "dbo_t"), CdcReaderOptions.Reader.STREAM);
    return new CdcMicroBatchStream(o, new StructType(), new StructType(), tmp.toString(), new Configuration(),
        SharedSpark.spark().sparkContext(), slept::add, Clock.systemUTC());
  }

  @Test
  void latestOffsetRetriesTransientFailuresOnANewConnection() {
    MemoryCdc db = MemoryCdc.create();
    db.enable("dbo_t", "t", MemoryCdc.col("id", 1, "int"));
    Lsn c1 = db.inserts("t", 0, 1);
    List<Long> slept = new ArrayList<>();
    CdcMicroBatchStream s = stream(db, slept);
    CdcOffset start = (CdcOffset) s.initialOffset();
    int opened = MemoryCdcClient.OPENED.get();
    db.transientFailures.set(2);
    CdcOffset end = (CdcOffset) s.latestOffset(start, ReadLimit.allAvailable());
    assertThat(end.lsn()).isEqualTo(c1);
    assertThat(slept).hasSize(2).allSatisfy(ms -> assertThat(ms).isBetween(1000L, 8000L));
    assertThat(MemoryCdcClient.OPENED.get() - opened).as("a new connection per retry").isEqualTo(2);

    db.transientFailures.set(4);
    assertThatThrownBy(() -> s.latestOffset(start, ReadLimit.allAvailable()))
        .isInstanceOf(CdcSourceUnavailableException.class).hasMessageContaining("Connection reset");
    s.stop();
  }

  @Test
  void offsetsOfAnotherTableOrFromTheReferenceAreCheckedOrRead() {
    MemoryCdc db = MemoryCdc.create();
    db.enable("dbo_t", "t", MemoryCdc.col("id", 1, "int"));
    Lsn c1 = db.inserts("t", 0, 1);
    CdcMicroBatchStream s = stream(db, new ArrayList<>());
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
