package io.mssqlcdc.sink.tables;

import io.delta.tables.DeltaTable;
import io.delta.tables.DeltaTableBuilder;
import io.mssqlcdc.errors.SinkErrors;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.spark.sql.DataFrameWriter;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Delta operations the library needs, for a table given by name or by path ({@link TableRef}):
 * the one place that knows how each is addressed. Nothing here sets a property or a feature on a
 * table beyond what it is asked to.
 */
public final class DeltaTables {
  private static final Logger LOG = LoggerFactory.getLogger(DeltaTables.class);

  private DeltaTables() {}

  /** Whether the table exists (a path: holds a Delta log; a name: the catalog knows it). */
  public static boolean exists(SparkSession spark, TableRef ref) {
    if (ref.isPath()) {
      return DeltaTable.isDeltaTable(spark, ref.text());
    }
    return spark.catalog().tableExists(ref.text());
  }

  /** The table as a {@link DeltaTable}. */
  public static DeltaTable table(SparkSession spark, TableRef ref) {
    try {
      return ref.isPath() ? DeltaTable.forPath(spark, ref.text()) : DeltaTable.forName(spark, ref.text());
    } catch (RuntimeException e) {
      if (String.valueOf(e.getMessage()).contains("not a Delta table")) {
        throw SinkErrors.notDelta(ref.text());
      }
      throw e;
    }
  }

  /** The table's current rows. */
  public static Dataset<Row> read(SparkSession spark, TableRef ref) {
    return ref.isPath() ? spark.read().format("delta").load(ref.text()) : spark.read().table(ref.text());
  }

  /** The table's rows at {@code version}. */
  public static Dataset<Row> readVersion(SparkSession spark, TableRef ref, long version) {
    if (ref.isPath()) {
      return spark.read().format("delta").option("versionAsOf", version).load(ref.text());
    }
    return spark.read().option("versionAsOf", version).table(ref.text());
  }

  /**
   * The table's newest version, as fresh as {@code DESCRIBE HISTORY}'s (both ask Delta's log for
   * its newest commit). Read from Delta's log on the driver, without a Spark job: the history's
   * first row costs one (it reads the commit's {@code commitInfo} in a task), and a silver call,
   * a reconcile or a snapshot asks for a version on every call (issue 25). Falls back to the history
   * where the log is not reachable that way (a name the session catalog does not hold, another
   * Delta build whose internal API differs).
   */
  public static long version(SparkSession spark, TableRef ref) {
    OptionalLong fromLog = LogVersion.newest(spark, ref);
    if (fromLog.isPresent()) {
      return fromLog.getAsLong();
    }
    return table(spark, ref).history(1).select("version").first().getLong(0);
  }

  /** The table's current schema. */
  public static StructType schema(SparkSession spark, TableRef ref) {
    return table(spark, ref).toDF().schema();
  }

  /**
   * The table properties ({@code TBLPROPERTIES}), read with {@code SHOW TBLPROPERTIES}: from the
   * table's metadata, without a Spark job ({@code DESCRIBE DETAIL} would compute the table's
   * whole state for its file count and size, three jobs on a fresh snapshot). Besides the
   * properties set on the table, Delta lists its protocol ({@code delta.minReaderVersion}, ...).
   */
  public static Map<String, String> properties(SparkSession spark, TableRef ref) {
    table(spark, ref); // a table that is not Delta fails here, with the fix
    Map<String, String> out = new HashMap<>();
    for (Row r : spark.sql("SHOW TBLPROPERTIES " + ref.sql()).collectAsList()) {
      out.put(r.getString(0), r.getString(1));
    }
    return out;
  }

  /**
   * Creates the table with exactly {@code columns} (all nullable; each field's {@code comment}
   * metadata becomes its column comment), {@code comment} and {@code properties}. A table that
   * exists already is left alone; a CREATE that loses a race to another writer adopts the table
   * the winner created (whatever failed, the table now exists).
   *
   * @return whether this call created it
   */
  public static boolean create(
      SparkSession spark, TableRef ref, StructType columns, String comment, Map<String, String> properties) {
    if (exists(spark, ref)) {
      return false;
    }
    DeltaTableBuilder b = DeltaTable.createIfNotExists(spark);
    b = ref.isPath() ? b.location(ref.text()) : b.tableName(ref.text());
    for (StructField f : columns.fields()) {
      var cb = DeltaTable.columnBuilder(spark, f.name()).dataType(f.dataType()).nullable(true);
      Optional<String> c = comment(f);
      if (c.isPresent()) {
        cb = cb.comment(c.get());
      }
      b = b.addColumn(cb.build());
    }
    if (comment != null) {
      b = b.comment(comment);
    }
    for (Map.Entry<String, String> p : properties.entrySet()) {
      b = b.property(p.getKey(), p.getValue());
    }
    long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
    for (int attempt = 0; ; attempt++) {
      try {
        b.execute();
        LOG.info("Created Delta table {} ({} columns)", ref, columns.size());
        return true;
      } catch (Exception e) {
        // Another writer created it meanwhile, or is creating it (its log directory exists, its first
        // commit not yet): adopt the winner's table once it is there. Exception, not RuntimeException:
        // Delta's DELTA_CREATE_TABLE_WITH_NON_EMPTY_LOCATION is an AnalysisException, a checked
        // exception to Java (Scala throws it undeclared); rethrown as it came (precise rethrow).
        if (exists(spark, ref)) {
          LOG.info("Delta table {} was created by another writer meanwhile; using it ({})", ref, e.getMessage());
          return false;
        }
        if (System.nanoTime() > deadline) {
          throw e;
        }
        try {
          Thread.sleep(Math.min(2_000, 100L << Math.min(attempt, 5)));
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          throw e;
        }
        if (exists(spark, ref)) {
          LOG.info("Delta table {} was created by another writer meanwhile; using it", ref);
          return false;
        }
      }
    }
  }

  /** Adds nullable columns (with their comments) in one commit. */
  public static void addColumns(SparkSession spark, TableRef ref, List<StructField> columns) {
    if (columns.isEmpty()) {
      return;
    }
    StringBuilder sql = new StringBuilder("ALTER TABLE ").append(ref.sql()).append(" ADD COLUMNS (");
    for (int i = 0; i < columns.size(); i++) {
      StructField f = columns.get(i);
      if (i > 0) {
        sql.append(", ");
      }
      sql.append(quote(f.name())).append(' ').append(f.dataType().sql());
      comment(f).ifPresent(c -> sql.append(" COMMENT ").append(literal(c)));
    }
    spark.sql(sql.append(')').toString());
  }

  /** Sets a column's comment. */
  public static void setColumnComment(SparkSession spark, TableRef ref, String column, String comment) {
    spark.sql("ALTER TABLE " + ref.sql() + " ALTER COLUMN " + quote(column) + " COMMENT " + literal(comment));
  }

  /** Sets the table's comment. */
  public static void setTableComment(SparkSession spark, TableRef ref, String comment) {
    spark.sql("COMMENT ON TABLE " + ref.sql() + " IS " + literal(comment));
  }

  /** Sets one table property. */
  public static void setProperty(SparkSession spark, TableRef ref, String key, String value) {
    spark.sql("ALTER TABLE " + ref.sql() + " SET TBLPROPERTIES (" + literal(key) + " = " + literal(value) + ")");
  }

  /** An append writer for {@code rows} into the table, with Delta {@code options}. */
  public static void append(Dataset<Row> rows, TableRef ref, Map<String, String> options) {
    DataFrameWriter<Row> w = rows.write().format("delta").mode("append").options(options);
    if (ref.isPath()) {
      w.save(ref.text());
    } else {
      w.saveAsTable(ref.text());
    }
  }

  /** A column's comment from its field metadata. */
  public static Optional<String> comment(StructField f) {
    return f.metadata().contains("comment") ? Optional.of(f.metadata().getString("comment")) : Optional.empty();
  }

  /** {@code `name`}, with backticks doubled. */
  public static String quote(String identifier) {
    return "`" + identifier.replace("`", "``") + "`";
  }

  /** A SQL string literal: backslashes and quotes escaped. */
  public static String literal(String s) {
    return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'";
  }
}
