package io.mssqlcdc.silver;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import org.junit.jupiter.api.Test;

/** The driver's order of key values is Spark's: strings by code point, floating point zeros equal, NaN on top. */
class SparkOrderTest {
  @Test
  void stringsCompareByCodePointNotByUtf16Unit() {
    String emoji = "\uD83D\uDE00";
    assertThat("\uFFFD".compareTo(emoji)).as("Java's UTF-16 order").isPositive();
    assertThat(SparkOrder.compare("\uFFFD", emoji)).isNegative();
    assertThat(SparkOrder.compare("ab", "a")).isPositive();
    assertThat(SparkOrder.compare("a", "ab")).isNegative();
    assertThat(SparkOrder.compare("abc", "abc")).isZero();
  }

  @Test
  void numbersBinaryAndFloatingPointAsSparkOrdersThem() {
    assertThat(SparkOrder.compare(-0.0d, 0.0d)).isZero();
    assertThat(SparkOrder.compare(Double.NaN, Double.POSITIVE_INFINITY)).isPositive();
    assertThat(SparkOrder.compare(-0.0f, 0.0f)).isZero();
    assertThat(SparkOrder.compare(new BigDecimal("1.50"), new BigDecimal("1.5"))).isZero();
    assertThat(SparkOrder.compare(new byte[] {(byte) 0x80}, new byte[] {0x7F})).isPositive();
    assertThat(SparkOrder.compare(3L, 20L)).isNegative();
  }
}
