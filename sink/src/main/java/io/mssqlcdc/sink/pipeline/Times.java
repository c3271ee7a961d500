package io.mssqlcdc.sink.pipeline;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/** Time formats of persisted state. */
final class Times {
  private static final DateTimeFormatter MILLIS = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS");

  private Times() {}

  /** UTC, ISO-8601 with exactly milliseconds, no zone: {@code 2026-09-28T13:58:00.000}. */
  static String millis(Instant t) {
    return MILLIS.format(LocalDateTime.ofInstant(t, ZoneOffset.UTC));
  }

  static LocalDateTime utc(Instant t) {
    return t == null ? null : LocalDateTime.ofInstant(t, ZoneOffset.UTC);
  }

  static LocalDateTime nowUtc() {
    return LocalDateTime.now(ZoneOffset.UTC);
  }
}
