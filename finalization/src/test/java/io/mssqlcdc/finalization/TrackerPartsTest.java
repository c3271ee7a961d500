package io.mssqlcdc.finalization;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.slf4j.event.Level;

/** The tracker's one-slot handoff and its failure logging policy, without Spark. */
class TrackerPartsTest {
  @Test
  void theNewestItemReplacesOneStillWaiting() {
    LatestSlot<Integer> slot = new LatestSlot<>();
    slot.offer(1);
    slot.offer(2);
    slot.offer(null); // ignored
    slot.offer(3);
    assertThat(slot.take(0)).isEqualTo(3);
    assertThat(slot.take(TimeUnit.MILLISECONDS.toNanos(1))).isNull(); // empty: timed out
    assertThat(slot.offered()).isEqualTo(3);
    assertThat(slot.replaced()).isEqualTo(2);
  }

  @Test
  void aClosedSlotHandsOutWhatIsLeftThenReportsDrained() {
    LatestSlot<Integer> slot = new LatestSlot<>();
    slot.offer(7);
    slot.close();
    slot.offer(8); // after close: ignored
    assertThat(slot.drained()).isFalse();
    assertThat(slot.take(TimeUnit.SECONDS.toNanos(10))).isEqualTo(7);
    assertThat(slot.drained()).isTrue();
    assertThat(slot.take(TimeUnit.SECONDS.toNanos(10))).isNull(); // returns at once: closed and empty
  }

  @Test
  void aConsumerSlowerThanItsProducerSeesIncreasingItemsAndTheLast() throws Exception {
    LatestSlot<Integer> slot = new LatestSlot<>();
    int n = 20_000;
    List<Integer> seen = new ArrayList<>();
    CountDownLatch started = new CountDownLatch(1);
    Thread consumer = new Thread(() -> {
      started.countDown();
      while (true) {
        Integer i = slot.take(TimeUnit.SECONDS.toNanos(30));
        if (i == null) {
          break;
        }
        seen.add(i);
      }
    });
    consumer.start();
    started.await();
    for (int i = 1; i <= n; i++) {
      slot.offer(i);
    }
    slot.close();
    consumer.join(TimeUnit.SECONDS.toMillis(60));
    assertThat(consumer.isAlive()).isFalse();
    assertThat(seen).isSorted().doesNotHaveDuplicates().endsWith(n);
    assertThat(seen.size() + slot.replaced()).isEqualTo(n);
  }

  @Test
  void aStreakIsLoggedOnceAtErrorThenAtMostEveryRepeatAsWarning() {
    AtomicLong now = new AtomicLong(0);
    FailureStreak s = new FailureStreak(Duration.ofMinutes(10), now::get);
    RuntimeException e = new RuntimeException("no MODIFY on ops.control");
    assertThat(s.failed(e)).isEqualTo(Level.ERROR);
    now.addAndGet(Duration.ofSeconds(10).toNanos());
    assertThat(s.failed(e)).isNull();
    now.addAndGet(Duration.ofMinutes(9).toNanos());
    assertThat(s.failed(e)).isNull();
    now.addAndGet(Duration.ofSeconds(50).toNanos()); // 10 min after the ERROR
    assertThat(s.failed(e)).isEqualTo(Level.WARN);
    now.addAndGet(Duration.ofMinutes(5).toNanos());
    assertThat(s.failed(e)).isNull();
    assertThat(s.failures()).isEqualTo(5);
    assertThat(s.lastError()).isSameAs(e);
    s.succeeded();
    assertThat(s.failures()).isZero();
    assertThat(s.lastError()).isNull();
    assertThat(s.failed(e)).isEqualTo(Level.ERROR); // a new streak starts loud again
  }
}
