package io.mssqlcdc.sink;

import io.mssqlcdc.errors.SinkErrors;

/** Turns Delta's refusals of a bronze append into the library's errors. */
final class BronzeWriteErrors {
  private BronzeWriteErrors() {}

  static RuntimeException translate(String target, RuntimeException e) {
    for (Throwable c = e; c != null; c = c.getCause() == c ? null : c.getCause()) {
      String m = String.valueOf(c.getMessage());
      if (m.contains("DELTA_FAILED_TO_MERGE_FIELDS") || m.contains("Failed to merge fields")
          || m.contains("DELTA_MERGE_INCOMPATIBLE_DATATYPE") || m.contains("Failed to merge incompatible data types")) {
        return SinkErrors.tableCannotTakeType(target, firstLine(m), e);
      }
    }
    return e;
  }

  private static String firstLine(String m) {
    int nl = m.indexOf('\n');
    return nl < 0 ? m : m.substring(0, nl);
  }
}
