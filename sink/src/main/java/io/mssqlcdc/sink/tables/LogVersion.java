package io.mssqlcdc.sink.tables;

import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.TableIdentifier;
import org.apache.spark.sql.catalyst.catalog.CatalogTable;
import org.apache.spark.sql.delta.DeltaLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.Option;

/**
 * A Delta table's newest version from its log, on the driver, with no Spark job
 * ({@link DeltaTables#version}): {@code DeltaLog.update()}, the call {@code DESCRIBE HISTORY} makes
 * first to learn the version it reads. {@code DeltaLog} is Delta's internal API: when it is not
 * there as this build knows it (a runtime with its own Delta) or the table is a name outside the
 * session catalog, the answer is empty and the caller asks the history instead.
 */
final class LogVersion {
  private static final Logger LOG = LoggerFactory.getLogger(LogVersion.class);
  private static final Set<String> WARNED = ConcurrentHashMap.newKeySet();

  private LogVersion() {}

  /** A table's log with its catalog entry (empty for a path), as {@code DeltaLog}'s calls take them. */
  record Log(DeltaLog log, Option<CatalogTable> table) {
    long update() {
      return log.update(false, Option.empty(), table).version();
    }

    /** A transaction of Delta's on the table's newest snapshot. */
    org.apache.spark.sql.delta.OptimisticTransaction startTransaction() {
      return log.startTransaction(table, Option.empty());
    }

    /** The newest snapshot's version and the table's id (a table made again at the same place has another). */
    LogTail.Position position() {
      org.apache.spark.sql.delta.Snapshot s = log.update(false, Option.empty(), table);
      return new LogTail.Position(log.dataPath().toString() + "#" + s.metadata().id(), s.version());
    }
  }

  static OptionalLong newest(SparkSession spark, TableRef ref) {
    try {
      Optional<Log> log = log(spark, ref);
      return log.isEmpty() ? OptionalLong.empty() : OptionalLong.of(log.get().update());
    } catch (Exception | LinkageError e) {
      unavailable(ref, e);
      return OptionalLong.empty();
    }
  }

  /**
   * The log of {@code ref}; empty for a name outside the session catalog or not a Delta table. Delta's
   * internal API: callers catch {@code Exception} and {@code LinkageError} and take another way.
   */
  static Optional<Log> log(SparkSession spark, TableRef ref) throws Exception {
    if (ref.isPath()) {
      return Optional.of(new Log(DeltaLog.forTable(spark, ref.text()), Option.empty()));
    }
    TableIdentifier id = spark.sessionState().sqlParser().parseTableIdentifier(ref.text());
    if (!spark.sessionState().catalog().tableExists(id)) {
      return Optional.empty();
    }
    CatalogTable table = spark.sessionState().catalog().getTableMetadata(id);
    if (table.provider().isEmpty() || !table.provider().get().toLowerCase(Locale.ROOT).equals("delta")) {
      return Optional.empty();
    }
    return Optional.of(new Log(DeltaLog.forTable(spark, table), Option.apply(table)));
  }

  /** Logs once per kind of failure (debug: the caller has another way) that Delta's log was not reachable. */
  static void unavailable(TableRef ref, Throwable e) {
    if (WARNED.add(e.getClass().getName())) {
      LOG.debug("Delta's log of {} is not reachable as this build knows it ({}): taking another way", ref,
          e.toString());
    }
  }
}
