package io.mssqlcdc.sink.tables;

import io.mssqlcdc.errors.SinkErrors;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates the library's tables and migrates them (reference-behaviour §14, §14.7): a table that
 * does not exist is created at its kind's latest version with explicit types, a comment on the
 * table and on each library column, and {@value #SCHEMA_VERSION}; a table that exists (written by
 * an older release, or by the Python reference with the same property) gets the migrations it
 * lacks, in order, each stamped as it completes, so an interrupted run resumes where it stopped.
 * Migration is retried on concurrent-commit conflicts ({@link DeltaConflicts}).
 *
 * <ul>
 *   <li>{@value #MIN_VERSION} above the migrations this release knows: refused (upgrade the library);
 *   <li>{@value #SCHEMA_VERSION} above them: written as is, with one warning per table and version;
 *   <li>unstamped: version 0.
 * </ul>
 * Nothing else is ever set on a table: type widening, deletion vectors, clustering and OPTIMIZE
 * stay the user's choice. Column mapping is set only when a new table has a column name Delta
 * refuses without it.
 */
public final class TableRunner {
  private static final Logger LOG = LoggerFactory.getLogger(TableRunner.class);
  /** The property every library table carries: the number of migrations applied. */
  public static final String SCHEMA_VERSION = "mssql_cdc.schema_version";
  /** The version a reader must know at least (no migration sets it yet). */
  public static final String MIN_VERSION = "mssql_cdc.min_version";
  /** Characters Delta refuses in a column name unless column mapping is on. */
  private static final String MAPPED_ONLY = " ,;{}()\n\t=";
  private static final Set<String> WARNED = ConcurrentHashMap.newKeySet();

  private TableRunner() {}

  /**
   * Creates {@code ref} as {@code kind} with {@code columns} when it does not exist, then applies
   * the migrations it lacks. Cheap when the table is current (one properties read).
   */
  public static void ensure(SparkSession spark, TableRef ref, TableKind kind, StructType columns) {
    if (!DeltaTables.exists(spark, ref)) {
      Map<String, String> props = new HashMap<>();
      props.put(SCHEMA_VERSION, Integer.toString(kind.latestVersion()));
      if (needsColumnMapping(columns)) {
        props.put("delta.columnMapping.mode", "name");
      }
      if (DeltaTables.create(spark, ref, columns, kind.tableComment(), props)) {
        return;
      }
    }
    DeltaConflicts.retrying("migrating " + ref, () -> migrate(spark, ref, kind));
  }

  /** Applies the migrations {@code ref} lacks; returns the version it is at afterwards. */
  public static int migrate(SparkSession spark, TableRef ref, TableKind kind) {
    Map<String, String> props = DeltaTables.properties(spark, ref);
    int known = kind.latestVersion();
    int min = parse(props.get(MIN_VERSION), ref, MIN_VERSION);
    if (min > known) {
      throw SinkErrors.tableNeedsNewerRelease(ref.text(), min, kind.name(), known);
    }
    int version = parse(props.get(SCHEMA_VERSION), ref, SCHEMA_VERSION);
    if (version > known) {
      if (WARNED.add(ref.text() + "@" + version)) {
        LOG.warn("{} is at {} schema version {}, newer than this release knows ({}): writing it as it is. "
            + "Upgrade mssql-cdc-spark to the release that wrote it.", ref, kind.name(), version, known);
      }
      return version;
    }
    for (int v = version + 1; v <= known; v++) {
      Migration m = kind.migrations().get(v - 1);
      apply(spark, ref, m);
      DeltaTables.setProperty(spark, ref, SCHEMA_VERSION, Integer.toString(v));
      LOG.info("Migrated {} ({}) to schema version {}: {}", ref, kind.name(), v, m.description());
    }
    return Math.max(version, known);
  }

  private static void apply(SparkSession spark, TableRef ref, Migration m) {
    StructType schema = DeltaTables.schema(spark, ref);
    Set<String> have = lowerNames(schema);
    var missing = m.addColumns().stream().filter(f -> !have.contains(f.name().toLowerCase(Locale.ROOT))).toList();
    DeltaTables.addColumns(spark, ref, missing);
    if (!m.comments().isEmpty()) {
      Map<String, String> actual = new HashMap<>();
      for (StructField f : DeltaTables.schema(spark, ref).fields()) {
        actual.put(f.name().toLowerCase(Locale.ROOT), f.name());
      }
      for (Map.Entry<String, String> c : m.comments().entrySet()) {
        String name = actual.get(c.getKey().toLowerCase(Locale.ROOT));
        if (name != null) {
          DeltaTables.setColumnComment(spark, ref, name, c.getValue());
        }
      }
    }
    m.tableComment().ifPresent(c -> DeltaTables.setTableComment(spark, ref, c));
  }

  /** Whether a column name needs Delta column mapping. */
  public static boolean needsColumnMapping(StructType columns) {
    for (StructField f : columns.fields()) {
      if (needsColumnMapping(f.name())) {
        return true;
      }
    }
    return false;
  }

  /** Whether {@code name} holds a character Delta refuses without column mapping. */
  public static boolean needsColumnMapping(String name) {
    for (char c : MAPPED_ONLY.toCharArray()) {
      if (name.indexOf(c) >= 0) {
        return true;
      }
    }
    return false;
  }

  static Set<String> lowerNames(StructType schema) {
    return java.util.Arrays.stream(schema.fieldNames()).map(n -> n.toLowerCase(Locale.ROOT))
        .collect(Collectors.toSet());
  }

  private static int parse(String v, TableRef ref, String property) {
    if (v == null || v.isBlank()) {
      return 0;
    }
    try {
      return Integer.parseInt(v.strip());
    } catch (NumberFormatException e) {
      throw new IllegalStateException(ref + ": table property " + property + " is '" + v
          + "', not a number. It is the library's: set it back to the version the table is at.", e);
    }
  }
}
