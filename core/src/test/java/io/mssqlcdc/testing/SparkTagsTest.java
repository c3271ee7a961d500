package io.mssqlcdc.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The guard behind the Spark 4.1 leg's selection, on the fixtures in io.mssqlcdc.testing.sparktags. */
class SparkTagsTest {
  private static final String P = "io.mssqlcdc.testing.sparktags.";

  private static List<String> untagged() {
    Path classes = Path.of(SparkTagsTest.class.getProtectionDomain().getCodeSource().getLocation().getPath());
    return SparkTags.untagged(classes, P, "spark", List.of("io/mssqlcdc/testing/sparktags/FakeSparkApi"),
        SparkTagsTest.class.getClassLoader());
  }

  @Test
  void reportsEachUntaggedTestClassThatReachesTheRootWithItsChain() {
    assertThat(untagged()).containsExactly(
        P + "UntaggedDirect -> io/mssqlcdc/testing/sparktags/FakeSparkApi",
        P + "UntaggedUse -> " + P + "Helper -> io/mssqlcdc/testing/sparktags/FakeSparkApi");
  }

  @Test
  void theMessageNamesTheTagAndTheLeg() {
    assertThat(SparkTags.message(List.of("a.BTest -> a.Fixture -> a/Spark", "a.CTest -> a/Spark"))).isEqualTo(
        "These test classes touch Spark or Delta but lack @Tag(\"spark\"), so the Spark 4.1 leg of CI (.ci/run,"
            + " -Pspark-4.1) would not run them. Add @Tag(\"spark\") to each (docs/CONTRIBUTING.md):\n"
            + "  a.BTest -> a.Fixture -> a/Spark\n"
            + "  a.CTest -> a/Spark");
    assertThat(SparkTags.message(List.of())).isEmpty();
  }

  @Test
  void thisModulesOwnTestsTouchNoSpark() {
    assertThat(SparkTags.untagged(SparkTagsTest.class)).isEmpty();
  }
}
