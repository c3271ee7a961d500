package io.mssqlcdc.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import io.mssqlcdc.client.KeyBucket;
import java.math.BigInteger;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Tier 1 bucket math and the status rule, without Spark. */
class BucketPlanTest {
  private static KeyBucket b(long id, long rows, long sum) {
    return new KeyBucket(id, rows, BigInteger.valueOf(sum));
  }

  @Test
  void theFineWidthCutsTheSpanIntoAtMostOneHundredThousandBuckets() {
    assertThat(BucketPlan.width(1, 10)).isEqualTo(1);
    assertThat(BucketPlan.width(0, 99_999)).isEqualTo(1);
    assertThat(BucketPlan.width(0, 100_000)).isEqualTo(2); // span 100,001
    assertThat(BucketPlan.width(-500_000, 499_999)).isEqualTo(10);
    assertThat(BucketPlan.width(Long.MIN_VALUE, Long.MAX_VALUE)).isEqualTo(184_467_440_737_096L);
  }

  @Test
  void fineBucketsRoundDownBelowZeroOnAGridAnchoredAtZero() {
    assertThat(BucketPlan.fine(0, 10)).isZero();
    assertThat(BucketPlan.fine(9, 10)).isZero();
    assertThat(BucketPlan.fine(-1, 10)).isEqualTo(-1);
    assertThat(BucketPlan.fine(-10, 10)).isEqualTo(-1);
    assertThat(BucketPlan.fine(-11, 10)).isEqualTo(-2);
  }

  @Test
  void fineBucketsMergeIntoBucketsOfAboutBucketRowsCountingTheLargerSide() {
    // fine ids -2, 0, 1, 5 (w = 10); bucketRows 3
    List<KeyBucket> source = List.of(b(-2, 2, -35), b(0, 1, 4), b(1, 2, 25), b(5, 1, 55));
    List<KeyBucket> silver = List.of(b(-2, 2, -35), b(0, 1, 4), b(1, 1, 12), b(3, 1, 30), b(5, 1, 55));
    List<BucketPlan.Bucket> buckets = BucketPlan.merge(source, silver, Set.of(3L), 10, 3);
    // -2 (2 rows) + 0 (1) = 3: closes; then 1 (2) + 3 (1) = 3: closes; then 5
    assertThat(buckets).extracting(BucketPlan.Bucket::lo, BucketPlan.Bucket::hi).containsExactly(
        org.assertj.core.groups.Tuple.tuple(BigInteger.valueOf(-20), BigInteger.valueOf(10)),
        org.assertj.core.groups.Tuple.tuple(BigInteger.valueOf(10), BigInteger.valueOf(50)),
        org.assertj.core.groups.Tuple.tuple(BigInteger.valueOf(50), BigInteger.valueOf(60)));
    assertThat(buckets.get(0).status()).isEqualTo(Status.MATCH);
    assertThat(buckets.get(1).sourceRows()).isEqualTo(2);
    assertThat(buckets.get(1).silverRows()).isEqualTo(2);
    assertThat(buckets.get(1).sourceSum()).isEqualTo(BigInteger.valueOf(25));
    assertThat(buckets.get(1).silverSum()).isEqualTo(BigInteger.valueOf(42));
    assertThat(buckets.get(1).status()).as("fine bucket 3 moved").isEqualTo(Status.IN_FLIGHT);
    assertThat(buckets.get(2).status()).isEqualTo(Status.MATCH);
    assertThat(buckets.get(1).holds(2)).as("an empty fine id between belongs to the bucket").isTrue();
    // unmoved, the same difference is a mismatch
    assertThat(BucketPlan.merge(source, silver, Set.of(), 10, 3).get(1).status()).isEqualTo(Status.MISMATCH);
  }

  @Test
  void aBucketAtTheTopOfBigintEndsPastIt() {
    long top = Long.MAX_VALUE;
    List<BucketPlan.Bucket> buckets = BucketPlan.merge(List.of(b(top, 1, top)), List.of(b(top, 1, top)), Set.of(), 1,
        10);
    assertThat(buckets).hasSize(1);
    assertThat(buckets.get(0).hi()).isEqualTo(BigInteger.valueOf(top).add(BigInteger.ONE));
    assertThat(buckets.get(0).holds(top)).isTrue();
  }

  @Test
  void statusIsMatchOnEqualRowsAndSumsElseInFlightWhenMovedElseMismatch() {
    assertThat(Status.of(3, BigInteger.TEN, 3, BigInteger.TEN, true)).isEqualTo(Status.MATCH);
    assertThat(Status.of(3, null, 3, null, false)).isEqualTo(Status.MATCH);
    assertThat(Status.of(3, BigInteger.TEN, 3, BigInteger.ONE, false)).isEqualTo(Status.MISMATCH);
    assertThat(Status.of(3, BigInteger.TEN, 2, BigInteger.TEN, true)).isEqualTo(Status.IN_FLIGHT);
  }

  @Test
  void boundsStayInsideTheKeyTypeAndNeverOpenBelow() {
    assertThat(KeyJson.intBound(BigInteger.valueOf(40_000), Short.MIN_VALUE, Short.MAX_VALUE)).isNull();
    assertThat(KeyJson.intBound(BigInteger.valueOf(-40_000), Short.MIN_VALUE, Short.MAX_VALUE))
        .isEqualTo(BigInteger.valueOf(Short.MIN_VALUE));
    assertThat(KeyJson.intBound(BigInteger.valueOf(-7), Short.MIN_VALUE, Short.MAX_VALUE)).isEqualTo(-7);
    assertThat(KeyJson.dayBound(BigInteger.valueOf(3_000_000))).isNull();
    assertThat(KeyJson.dayBound(BigInteger.valueOf(-800_000))).isEqualTo(java.time.LocalDate.of(1, 1, 1));
    assertThat(KeyJson.dayBound(BigInteger.valueOf(-1))).isEqualTo(java.time.LocalDate.of(1969, 12, 31));
    assertThat(KeyJson.boundText(List.of("a", 1, java.time.LocalDate.of(2026, 3, 1)))).isEqualTo("[\"a\",1,\"2026-03-01\"]");
    assertThat(KeyJson.boundText(List.of(new byte[] {1, (byte) 0xAB}))).isEqualTo("\"0x01AB\"");
  }
}
