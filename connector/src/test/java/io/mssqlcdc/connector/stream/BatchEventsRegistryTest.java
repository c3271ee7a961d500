package io.mssqlcdc.connector.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.mssqlcdc.connector.CdcOffset;
import io.mssqlcdc.lsn.Lsn;
import java.util.List;
import java.util.UUID;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The per-batch report registry under a fan-out (issue 26 item 5): a running query's reports are
 * never evicted by other queries, however many run; a stopped query's go once
 * {@link BatchEvents#KEEP_TERMINATED} later queries stopped. Plain logic: no Spark.
 */
class BatchEventsRegistryTest {
  private static final CdcOffset START = CdcOffset.of(Lsn.parse("0x0000002A000000010001"), null, "test");
  private static final CdcOffset END = CdcOffset.of(Lsn.parse("0x0000002A000000020001"), null, "test");

  private static void register(String query, long batch) {
    BatchEvents.register(new BatchReport(query, batch, START, END, List.of(), List.of(), List.of(), null));
  }

  @Test
  void aHundredRunningQueriesKeepEveryReportAndStoppedOnesGoAfterSixteenMore() {
    String run = UUID.randomUUID().toString();
    List<String> queries = IntStream.range(0, 100).mapToObj(i -> run + "-" + i).toList();
    for (long batch = 0; batch < 3; batch++) {
      for (String q : queries) {
        register(q, batch);
      }
    }
    // Before: the 64 queries registered last were kept, the first 36 lost their facts metrics and events.
    for (String q : queries) {
      assertThat(BatchEvents.forBatch(q, 0)).as(q).isPresent();
      assertThat(BatchEvents.forBatch(q, 2)).as(q).isPresent();
    }

    // 20 stop: the 4 that stopped first are dropped, the last 16 stay readable, the running 80 untouched.
    queries.subList(0, 20).forEach(BatchEvents::terminated);
    for (int i = 0; i < 100; i++) {
      assertThat(BatchEvents.forBatch(queries.get(i), 2).isPresent()).as(queries.get(i)).isEqualTo(i >= 4);
    }
    assertThat(BatchEvents.isTerminated(queries.get(4))).isTrue();
    assertThat(BatchEvents.isTerminated(queries.get(20))).isFalse();

    // A stopped query that runs again is running: 16 more stops do not drop it.
    register(queries.get(5), 3);
    queries.subList(20, 36).forEach(BatchEvents::terminated);
    assertThat(BatchEvents.forBatch(queries.get(5), 3)).isPresent();
    assertThat(BatchEvents.forBatch(queries.get(6), 2)).isEmpty();
    // A batch id keeps its last KEEP_BATCHES batches.
    for (long batch = 3; batch < 3 + BatchEvents.KEEP_BATCHES; batch++) {
      register(queries.get(99), batch);
    }
    assertThat(BatchEvents.forBatch(queries.get(99), 2)).isEmpty();
    assertThat(BatchEvents.forBatch(queries.get(99), 3)).isPresent();
  }
}
