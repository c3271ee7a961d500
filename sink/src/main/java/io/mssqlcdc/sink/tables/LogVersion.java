package io.mssqlcdc.sink.tables;

import java.util.Locale;
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

  static OptionalLong newest(SparkSession spark, TableRef ref) {
    try {
      if (ref.isPath()) {
        return OptionalLong.of(DeltaLog.forTable(spark, ref.text()).update(false, Option.empty(), Option.empty())
            .version());
      }
      TableIdentifier id = spark.sessionState().sqlParser().parseTableIdentifier(ref.text());
      if (!spark.sessionState().catalog().tableExists(id)) {
        return OptionalLong.empty();
      }
      CatalogTable table = spark.sessionState().catalog().getTableMetadata(id);
      if (table.provider().isEmpty() || !table.provider().get().toLowerCase(Locale.ROOT).equals("delta")) {
        return OptionalLong.empty();
      }
      return OptionalLong.of(DeltaLog.forTable(spark, table).update(false, Option.empty(), Option.apply(table))
          .version());
    } catch (Exception | LinkageError e) {
      if (WARNED.add(e.getClass().getName())) {
        LOG.debug("The newest version of {} from Delta's log failed ({}): asking its history instead", ref,
            e.toString());
      }
      return OptionalLong.empty();
    }
  }
}
