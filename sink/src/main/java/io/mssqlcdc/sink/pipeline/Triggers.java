package io.mssqlcdc.sink.pipeline;

import io.mssqlcdc.errors.CdcErrors;
import java.util.Locale;
import org.apache.spark.sql.streaming.Trigger;

/**
 * Triggers by name, for callers that cannot build a {@link Trigger} (PySpark over the JVM
 * gateway, configuration files): {@code availableNow}, {@code once}, or
 * {@code processingTime=<interval>} ({@code processingTime=1 minute}, {@code processingTime=30 seconds}).
 */
final class Triggers {
  private Triggers() {}

  static Trigger parse(String text) {
    String t = text == null ? "" : text.strip();
    String lower = t.toLowerCase(Locale.ROOT);
    if (lower.equals("availablenow")) {
      return Trigger.AvailableNow();
    }
    if (lower.equals("once")) {
      return Trigger.Once();
    }
    for (String prefix : new String[] {"processingtime=", "processingtime:"}) {
      if (lower.startsWith(prefix) && t.length() > prefix.length()) {
        String interval = t.substring(prefix.length()).strip();
        try {
          return Trigger.ProcessingTime(interval);
        } catch (IllegalArgumentException e) {
          throw CdcErrors.invalidOption("trigger", text, "'availableNow', 'once' or 'processingTime=<interval>'",
              "the interval '" + interval + "' is not one Spark reads, e.g. '1 minute' or '30 seconds'");
        }
      }
    }
    throw CdcErrors.invalidOption("trigger", text, "'availableNow', 'once' or 'processingTime=<interval>'",
        "e.g. processingTime=1 minute; continuous triggers are not supported by the mssql_cdc source");
  }
}
