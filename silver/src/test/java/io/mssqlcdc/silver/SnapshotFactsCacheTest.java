package io.mssqlcdc.silver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.sink.SharedDeltaSpark;
import io.mssqlcdc.sink.tables.TableRef;
import java.nio.file.Path;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link SnapshotFacts#read} answers from what it read before while the facts commits since only add
 * rows without an event (the stream's batch rows), with no Spark job, and reads the table again as
 * soon as a commit may hold one, of any target.
 */
@Tag("spark")
class SnapshotFactsCacheTest {
  @TempDir Path tmp;
  SparkSession spark = SharedDeltaSpark.spark();

  private void append(String facts, String rows) {
    spark.sql("SELECT * FROM VALUES " + rows + " AS f(target, event, min_lsn, max_lsn, detail)").write()
        .format("delta").mode("append").save(facts);
  }

  private static String batch(String target) {
    return "('" + target + "', CAST(NULL AS STRING), '0x01', '0x02', CAST(NULL AS STRING))";
  }

  @Test
  void batchRowsNeedNoReadAndAnEventOfAnyTargetDoes() {
    String facts = tmp.resolve("facts").toString();
    TableRef ref = TableRef.of(facts);
    append(facts, "('bronze', 'bootstrap', CAST(NULL AS STRING), '0x0000002A000000100001', CAST(NULL AS STRING))");
    SnapshotFacts first = SnapshotFacts.read(spark, ref, "bronze");
    assertThat(first.newest()).isEqualTo("0x0000002A000000100001");

    append(facts, batch("bronze"));
    append(facts, batch("bronze") + ", " + batch("other"));
    SparkJobs.Run<SnapshotFacts> cached = SparkJobs.count(spark, () -> SnapshotFacts.read(spark, ref, "bronze"));
    assertThat(cached.value()).isEqualTo(first);
    assertThat(cached.jobs()).as("Spark jobs").isEmpty();

    // Another target's event: read again, same answer for this one.
    append(facts, "('other', 'resnapshot', CAST(NULL AS STRING), '0x0000002A000000200001', CAST(NULL AS STRING))");
    SparkJobs.Run<SnapshotFacts> again = SparkJobs.count(spark, () -> SnapshotFacts.read(spark, ref, "bronze"));
    assertThat(again.jobs()).as("Spark jobs").isNotEmpty();
    assertThat(again.value()).isEqualTo(first);

    // This target's re-snapshot, in a commit beside a batch row: seen.
    append(facts, batch("bronze") + ", ('bronze', 'resnapshot', CAST(NULL AS STRING), '0x0000002A000000300001',"
        + " CAST(NULL AS STRING))");
    assertThat(SnapshotFacts.read(spark, ref, "bronze").newest()).isEqualTo("0x0000002A000000300001");
    assertThat(SnapshotFacts.read(spark, ref, "other").newest()).isEqualTo("0x0000002A000000200001");

    // Rows deleted (an operator's clean-up): read again.
    spark.sql("DELETE FROM delta.`" + facts + "` WHERE event = 'resnapshot' AND target = 'bronze'");
    assertThat(SnapshotFacts.read(spark, ref, "bronze").newest()).isEqualTo("0x0000002A000000100001");
  }

  private static String event(String event, String lsn, String detail) {
    return "('bronze', '" + event + "', CAST(NULL AS STRING), '" + lsn + "', "
        + (detail == null ? "CAST(NULL AS STRING)" : "'" + detail + "'") + ")";
  }

  @Test
  void everyChunkedOpenIsKnownNotOnlyTheNewest() {
    String facts = tmp.resolve("facts").toString();
    TableRef ref = TableRef.of(facts);
    String s1 = "0x0000002A000000100001";
    String s2 = "0x0000002A000000200001";
    String s3 = "0x0000002A000000300001";
    // S1 chunked and complete, S2 chunked and open, S3 a full snapshot's open row (its rows come whole).
    append(facts, event("snapshot_open", s1, "{\"mode\": \"chunked\", \"keys\": [\"id\"]}") + ", "
        + event("bootstrap", s1, null) + ", " + event("snapshot_open", s2, "{\"keys\": [\"id\"]}") + ", "
        + event("snapshot_open", s3, "{\"mode\": \"full\"}"));
    SnapshotFacts seen = SnapshotFacts.read(spark, ref, "bronze");
    assertThat(seen.newest()).isEqualTo(s1);
    assertThat(seen.openLsn()).as("the newest chunked open").isEqualTo(s2);
    assertThat(seen.openedChunked(s1)).as("S1, though S2 opened since").isTrue();
    assertThat(seen.openedChunked(s2)).isTrue();
    assertThat(seen.openedChunked(s3)).as("a full snapshot").isFalse();
    assertThat(seen.openedChunked(null)).isFalse();
    assertThat(seen.chunkedOpens()).containsExactlyInAnyOrder(s1, s2);
    assertThatThrownBy(() -> seen.chunkedOpens().add("0x01")).as("shared by every caller")
        .isInstanceOf(UnsupportedOperationException.class);
    // The cached answer, after the stream's batch rows, says the same.
    append(facts, batch("bronze"));
    SparkJobs.Run<SnapshotFacts> cached = SparkJobs.count(spark, () -> SnapshotFacts.read(spark, ref, "bronze"));
    assertThat(cached.jobs()).as("Spark jobs").isEmpty();
    assertThat(cached.value().openedChunked(s1)).isTrue();
    assertThat(SnapshotFacts.read(spark, ref, "other").openedChunked(s1)).as("another target").isFalse();
  }
}
