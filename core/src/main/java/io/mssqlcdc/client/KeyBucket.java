package io.mssqlcdc.client;

import java.io.Serializable;
import java.math.BigInteger;
import java.util.Objects;

/**
 * One non-empty bucket of {@link CdcClient#keyBuckets}: the rows whose key ordinal {@code o}
 * (an integer key's value, a date key's days since 1970-01-01) has {@code floor(o / width) ==
 * bucket}, i.e. lies in {@code [bucket * width, (bucket + 1) * width)}; negative ordinals round
 * down ({@code -1} is in bucket {@code -1} for every width).
 *
 * @param bucket {@code floor(o / width)}
 * @param rows rows in the bucket ({@code COUNT_BIG}), at least 1
 * @param keySum the sum of their ordinals, exact (SQL Server sums as {@code decimal(38,0)}, which
 *     no sum of bigint values in one table overflows in practice)
 */
public record KeyBucket(long bucket, long rows, BigInteger keySum) implements Serializable {
  public KeyBucket {
    Objects.requireNonNull(keySum, "keySum");
  }
}
