package io.mssqlcdc.finalization;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.connector.CdcOffset;
import io.mssqlcdc.errors.CdcConfigException;
import io.mssqlcdc.lsn.Lsn;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The verdict's rules without Spark: granularity, candidate, period ends in UTC, the final test. */
class VerdictRulesTest {
  private static final Lsn LSN = Lsn.parse("0x0000002A000001F00003");

  private static CdcOffset offset(String commitTs) {
    return CdcOffset.fromJson("{\"lsn\": \"" + LSN + "\", \"commit_ts\": \"" + commitTs + "\"}");
  }

  @Test
  void granularityIsMinuteHourOrDayIgnoringCase() {
    assertThat(Granularity.parse("minute")).isEqualTo(Granularity.MINUTE);
    assertThat(Granularity.parse("HOUR")).isEqualTo(Granularity.HOUR);
    assertThat(Granularity.parse(" Day ")).isEqualTo(Granularity.DAY);
    assertThatThrownBy(() -> Granularity.parse("week")).isInstanceOf(CdcConfigException.class)
        .hasMessage("MSSQL_CDC-760: granularity must be one of ('minute', 'hour', 'day'), not 'week'. It is the period"
            + " finalized_until is counted in: pick the period downstream jobs gate on.");
    assertThatThrownBy(() -> Granularity.parse(null)).hasMessageContaining("not 'null'");
  }

  @Test
  void truncateZeroesWhatIsBelowThePeriod() {
    LocalDateTime t = LocalDateTime.of(2026, 3, 1, 10, 42, 17, 123_456_000);
    assertThat(Granularity.MINUTE.truncate(t)).isEqualTo("2026-03-01T10:42:00");
    assertThat(Granularity.HOUR.truncate(t)).isEqualTo("2026-03-01T10:00:00");
    assertThat(Granularity.DAY.truncate(t)).isEqualTo("2026-03-01T00:00:00");
  }

  @Test
  void theCandidateExcludesThePeriodHoldingTheEndCommit() {
    assertThat(Finalization.candidate(offset("2026-03-01T10:42:17.123"), "hour")).contains(LocalDateTime.of(2026, 3, 1, 10, 0));
    assertThat(Finalization.candidate(offset("2026-03-01T10:42:17.123"), "minute"))
        .contains(LocalDateTime.of(2026, 3, 1, 10, 42));
    assertThat(Finalization.candidate(offset("2026-03-01T10:42:17.123"), "day")).contains(LocalDateTime.of(2026, 3, 1, 0, 0));
    // A commit exactly on a period start: that period holds it, so only the one before is final.
    assertThat(Finalization.candidate(offset("2026-03-01T10:00:00.000"), "hour")).contains(LocalDateTime.of(2026, 3, 1, 10, 0));
    // The reference's offsets with an explicit offset in commit_ts are read in UTC.
    assertThat(Finalization.candidate(offset("2026-03-01T12:42:17.123+02:00"), "hour"))
        .contains(LocalDateTime.of(2026, 3, 1, 10, 0));
  }

  @Test
  void noOffsetOrNoCommitTimeGivesNoCandidate() {
    assertThat(Finalization.candidate(null, "hour")).isEmpty();
    assertThat(Finalization.candidate(offset(""), "hour")).isEmpty();
    assertThatThrownBy(() -> Finalization.candidate(null, "fortnight")).hasMessageContaining("MSSQL_CDC-760");
  }

  @Test
  void aPeriodIsFinalExactlyWhenItsEndIsAtOrBeforeTheVerdict() {
    Optional<LocalDateTime> verdict = Optional.of(LocalDateTime.of(2026, 3, 1, 10, 0));
    assertThat(Verdicts.isFinal(verdict, LocalDateTime.of(2026, 3, 1, 9, 0))).isTrue();
    assertThat(Verdicts.isFinal(verdict, LocalDateTime.of(2026, 3, 1, 10, 0))).isTrue();
    assertThat(Verdicts.isFinal(verdict, LocalDateTime.of(2026, 3, 1, 10, 0, 0, 1000))).isFalse();
    assertThat(Verdicts.isFinal(verdict, LocalDateTime.of(2026, 3, 1, 11, 0))).isFalse();
    assertThat(Verdicts.isFinal(Optional.empty(), LocalDateTime.of(1970, 1, 1, 0, 0))).isFalse();
  }

  @Test
  void zoneAwarePeriodEndsAreConvertedToUtc() {
    LocalDateTime utc10 = LocalDateTime.of(2026, 3, 1, 10, 0);
    assertThat(PeriodEnds.toUtc(OffsetDateTime.of(2026, 3, 1, 12, 0, 0, 0, ZoneOffset.ofHours(2)))).isEqualTo(utc10);
    assertThat(PeriodEnds.toUtc(ZonedDateTime.of(2026, 3, 1, 7, 0, 0, 0, ZoneId.of("America/Sao_Paulo"))))
        .isEqualTo(utc10);
    assertThat(PeriodEnds.toUtc(Instant.parse("2026-03-01T10:00:00Z"))).isEqualTo(utc10);
    assertThat(PeriodEnds.toUtc(utc10)).isEqualTo(utc10);
    assertThat(PeriodEnds.toUtc(LocalDate.of(2026, 3, 1))).isEqualTo(LocalDateTime.of(2026, 3, 1, 0, 0));
    // Across a DST change: 2026-03-29 02:30 does not exist in Berlin; 03:30 CEST is 01:30 UTC.
    assertThat(PeriodEnds.toUtc(ZonedDateTime.of(2026, 3, 29, 3, 30, 0, 0, ZoneId.of("Europe/Berlin"))))
        .isEqualTo(LocalDateTime.of(2026, 3, 29, 1, 30));
    // The ambiguous autumn hour: the earlier offset (CEST, +02:00) and the later (CET, +01:00) differ by an hour.
    ZonedDateTime early = ZonedDateTime.of(2026, 10, 25, 2, 30, 0, 0, ZoneId.of("Europe/Berlin"));
    assertThat(PeriodEnds.toUtc(early)).isEqualTo(LocalDateTime.of(2026, 10, 25, 0, 30));
    assertThat(PeriodEnds.toUtc(early.withLaterOffsetAtOverlap())).isEqualTo(LocalDateTime.of(2026, 10, 25, 1, 30));
    assertThatThrownBy(() -> PeriodEnds.toUtc(LocalTime.NOON)).isInstanceOf(CdcConfigException.class)
        .hasMessageStartingWith("MSSQL_CDC-761: periodEnd '12:00' is a LocalTime, which names no point in time.");
    assertThatThrownBy(() -> PeriodEnds.toUtc((java.time.temporal.Temporal) null)).hasMessageContaining("is missing");
  }

  @Test
  void periodEndsAsIsoTextWithOrWithoutAnOffset() {
    LocalDateTime utc10 = LocalDateTime.of(2026, 3, 1, 10, 0);
    assertThat(PeriodEnds.toUtc("2026-03-01T12:00:00+02:00")).isEqualTo(utc10);
    assertThat(PeriodEnds.toUtc("2026-03-01T05:00-05:00")).isEqualTo(utc10);
    assertThat(PeriodEnds.toUtc("2026-03-01T10:00:00Z")).isEqualTo(utc10);
    assertThat(PeriodEnds.toUtc("2026-03-01T11:00:00+01:00[Europe/Paris]")).isEqualTo(utc10);
    assertThat(PeriodEnds.toUtc("2026-03-01T10:00:00")).isEqualTo(utc10);
    assertThat(PeriodEnds.toUtc("2026-03-01 12:00:00+02:00")).isEqualTo(utc10); // Python's str(datetime)
    assertThat(PeriodEnds.toUtc("2026-03-01T10:00:00.000001")).isEqualTo(utc10.plusNanos(1000));
    assertThat(PeriodEnds.toUtc(" 2026-03-01 ")).isEqualTo(LocalDateTime.of(2026, 3, 1, 0, 0));
    assertThatThrownBy(() -> PeriodEnds.toUtc("yesterday")).isInstanceOf(CdcConfigException.class)
        .hasMessageStartingWith("MSSQL_CDC-761: periodEnd 'yesterday' is not an ISO-8601 date-time. Pass the exclusive"
            + " end of the period as an ISO-8601 date-time, with an offset or zone");
    assertThatThrownBy(() -> PeriodEnds.toUtc("")).hasMessageContaining("is missing");
  }
}
