package io.mssqlcdc.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class CrashPointsTest {
  @AfterEach
  void off() {
    CrashPoints.disarm();
  }

  @Test
  void anUnarmedPointDoesNothing() {
    CrashPoints.hit(CrashPoint.SINK_AFTER_BRONZE);
    assertThat(CrashPoints.fired()).isNull();
  }

  @Test
  void theArmedPointFiresOnItsNthHitOnceAndOtherPointsNever() {
    CrashPoints.arm(CrashPoint.SINK_AFTER_BRONZE, 2);
    CrashPoints.hit(CrashPoint.SINK_BEFORE_BRONZE);
    CrashPoints.hit(CrashPoint.SINK_AFTER_BRONZE);
    assertThat(CrashPoints.fired()).isNull();
    assertThatThrownBy(() -> CrashPoints.hit(CrashPoint.SINK_AFTER_BRONZE))
        .isInstanceOf(CrashPointException.class)
        .hasMessage("simulated crash at sink.afterBronzeCommit (hit 2)");
    CrashPoints.hit(CrashPoint.SINK_AFTER_BRONZE);
    assertThat(CrashPoints.disarm()).isEqualTo(CrashPoint.SINK_AFTER_BRONZE);
    assertThat(CrashPoints.fired()).isNull();
  }

  @Test
  void anActionMayThrowACheckedException() {
    CrashPoints.arm(CrashPoint.SILVER_AFTER_MERGE, 1, (p, n) -> {
      throw new InterruptedException("stopped at " + p.id());
    });
    assertThatThrownBy(() -> CrashPoints.hit(CrashPoint.SILVER_AFTER_MERGE))
        .isInstanceOf(InterruptedException.class).hasMessage("stopped at silver.afterMerge");
  }

  @Test
  void pointsParseByIdOrName() {
    assertThat(CrashPoint.parse("silver.afterMerge")).isEqualTo(CrashPoint.SILVER_AFTER_MERGE);
    assertThat(CrashPoint.parse("sink_after_facts")).isEqualTo(CrashPoint.SINK_AFTER_FACTS);
    assertThatThrownBy(() -> CrashPoint.parse("nowhere")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("no crash point 'nowhere'; the points: [sink.beforeBronzeCommit,");
  }
}
