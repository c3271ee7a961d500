package io.mssqlcdc.bench;

import java.time.LocalTime;
import java.time.temporal.ChronoUnit;
import java.util.Locale;

/** Progress lines on stderr (the table goes to stdout). */
public final class Log {
  private Log() {}

  public static void info(String format, Object... args) {
    System.err.println(LocalTime.now().truncatedTo(ChronoUnit.SECONDS) + " bench: "
        + String.format(Locale.ROOT, format, args));
  }
}
