package io.mssqlcdc.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import io.mssqlcdc.testing.SparkTags;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every test class of this module that touches Spark or Delta carries {@code @Tag("spark")}: the Spark 4.1 leg of CI
 * runs only those (docs/CONTRIBUTING.md).
 */
class SparkTagsTest {
  @Test
  void everyTestThatTouchesSparkIsTaggedSpark() {
    List<String> untagged = SparkTags.untagged(SparkTagsTest.class);
    assertThat(untagged).as(SparkTags.message(untagged)).isEmpty();
  }
}
