package io.mssqlcdc.silver;

import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.spark.sql.SparkSession;

/**
 * What this JVM has created or migrated already, per session: a job that calls {@link ApplyChanges}
 * every few minutes checks the control table and silver's columns once, not on every call (each
 * check reads the Delta log and the table's properties). A call that fails forgets its entries, so
 * the next one checks again (the table may have been dropped or altered).
 */
final class EnsuredTables {
  private static final Map<SparkSession, Set<String>> DONE = Collections.synchronizedMap(new WeakHashMap<>());

  private EnsuredTables() {}

  static boolean contains(SparkSession spark, String what) {
    Set<String> s = DONE.get(spark);
    return s != null && s.contains(what);
  }

  static void add(SparkSession spark, String what) {
    DONE.computeIfAbsent(spark, x -> ConcurrentHashMap.newKeySet()).add(what);
  }

  /** Forgets {@code what} and the entries that extend it ({@code what} + a blank + more). */
  static void forget(SparkSession spark, String what) {
    Set<String> s = DONE.get(spark);
    if (s != null) {
      s.removeIf(w -> w.equals(what) || w.startsWith(what + " "));
    }
  }
}
