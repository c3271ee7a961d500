package io.mssqlcdc.connector.stream;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.helpers.MessageFormatter;

/**
 * The WARNING lines the driver logs for one micro-batch (planning, the retention guard, the
 * server clock), kept as logged for the facts table's {@code detail.warnings}
 * (verified/sink-and-pipeline.md §13): de-duplicated, in first-seen order. Each line is also
 * logged at WARN by the logger of the class that found it.
 */
final class BatchWarnings {
  private final Set<String> lines = new LinkedHashSet<>();

  /** Logs {@code format} (slf4j {@code {}} placeholders) with {@code args} at WARN and keeps the line. */
  void warn(Logger log, String format, Object... args) {
    String line = MessageFormatter.arrayFormat(format, args).getMessage();
    log.warn(line);
    lines.add(line);
  }

  void addAll(List<String> more) {
    lines.addAll(more);
  }

  boolean isEmpty() {
    return lines.isEmpty();
  }

  /** The lines so far, first-seen order. */
  List<String> lines() {
    return List.copyOf(new ArrayList<>(lines));
  }

  /** The lines so far, and forget them. */
  List<String> drain() {
    List<String> out = lines();
    lines.clear();
    return out;
  }
}
