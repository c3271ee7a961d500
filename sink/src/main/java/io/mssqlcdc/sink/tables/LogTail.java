package io.mssqlcdc.sink.tables;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Optional;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.delta.actions.Action;
import org.apache.spark.sql.delta.actions.AddFile;
import org.apache.spark.sql.delta.actions.CommitInfo;
import org.apache.spark.sql.delta.actions.RemoveFile;
import org.apache.spark.sql.delta.actions.SetTransaction;
import scala.Tuple2;
import scala.collection.Iterator;

/**
 * What a Delta table's commits after a version did, read from its log's commit files on the driver
 * (no Spark job): for a reader that caches what it found at one version and wants to know whether
 * a newer version can change it. Delta's internal API, like {@link LogVersion}: when the log is not
 * reachable as this build knows it, the answer is "cannot tell" and the caller reads the table.
 */
public final class LogTail {
  /** Past this many commits the caller's own read is cheaper than reading each commit file. */
  static final long MAX_COMMITS = 500;
  private static final ObjectMapper JSON = new ObjectMapper();

  private LogTail() {}

  /** A table's newest version, and what names the table across sessions: its location and Delta's table id. */
  public record Position(String table, long version) {}

  /** The newest version of {@code ref} from its log; empty when the log is not reachable that way. */
  public static Optional<Position> position(SparkSession spark, TableRef ref) {
    try {
      Optional<LogVersion.Log> log = LogVersion.log(spark, ref);
      if (log.isEmpty()) {
        return Optional.empty();
      }
      return Optional.of(log.get().position());
    } catch (Exception | LinkageError e) {
      LogVersion.unavailable(ref, e);
      return Optional.empty();
    }
  }

  /**
   * Whether every commit of {@code ref} after version {@code from} up to {@code to} only added rows in
   * which {@code column} is NULL, by the added files' statistics (their {@code nullCount} equal to
   * their {@code numRecords}), and removed none (a remove that is not a data change, a compaction's,
   * is allowed: its rows come back in an added file, which is checked). A change of the table's
   * metadata or protocol, a table with column mapping, a file without statistics for the column (statistics off,
   * the column past the indexed ones), more than {@value #MAX_COMMITS} commits, a version gone from
   * the log, or a log this build cannot read: false. True when {@code to == from}.
   */
  public static boolean onlyNullIn(SparkSession spark, TableRef ref, long from, long to, String column) {
    if (to == from) {
      return true;
    }
    if (to < from || to - from > MAX_COMMITS) {
      return false;
    }
    try {
      Optional<LogVersion.Log> log = LogVersion.log(spark, ref);
      if (log.isEmpty() || mapsColumns(log.get(), to)) {
        return false;
      }
      return eachAction(log.get().log(), log.get().table(), from, to, a -> nullIn(a, column));
    } catch (Exception | LinkageError e) {
      LogVersion.unavailable(ref, e);
      return false;
    }
  }

  /**
   * Visits the actions of {@code log}'s commits after version {@code from} up to {@code to}, in order, while
   * {@code visit} returns true (Delta's {@code getChanges}, the commit files only, on the driver). True when every one
   * of those commits was read, in sequence, and none of its actions stopped the visit; false at a gap or a stop.
   * Throws what Delta throws (a commit file gone, possibly undeclared).
   */
  static boolean eachAction(org.apache.spark.sql.delta.DeltaLog log,
      scala.Option<org.apache.spark.sql.catalyst.catalog.CatalogTable> table, long from, long to,
      java.util.function.Predicate<Action> visit) {
    Iterator<Tuple2<Object, scala.collection.immutable.Seq<Action>>> commits =
        log.getChanges(from + 1, to, table, true);
    long expected = from + 1;
    while (commits.hasNext()) {
      Tuple2<Object, scala.collection.immutable.Seq<Action>> c = commits.next();
      if ((Long) c._1() != expected) {
        return false;
      }
      expected++;
      Iterator<Action> actions = c._2().iterator();
      while (actions.hasNext()) {
        if (!visit.test(actions.next())) {
          return false;
        }
      }
    }
    return expected == to + 1;
  }

  /**
   * Whether the table maps column names (Delta's column mapping): then a file's statistics are keyed by
   * physical names, and a renamed column's physical name may be another column's display name (a column
   * renamed away from {@code event} keeps {@code event} as its physical name), so they cannot be read by name.
   */
  private static boolean mapsColumns(LogVersion.Log log, long to) {
    // The snapshot the caller's position() just brought up to date, when it reaches to: no second log listing.
    org.apache.spark.sql.delta.Snapshot known = log.log().unsafeVolatileSnapshot();
    org.apache.spark.sql.delta.Snapshot s = known.version() >= to ? known
        : log.log().update(false, scala.Option.empty(), log.table());
    scala.Option<String> mode = s.metadata().configuration().get("delta.columnMapping.mode");
    return mode.isDefined() && !mode.get().equalsIgnoreCase("none");
  }

  private static boolean nullIn(Action a, String column) {
    if (a instanceof AddFile add) {
      return allNull(add.stats(), column);
    }
    if (a instanceof RemoveFile remove) {
      return !remove.dataChange();
    }
    return a instanceof CommitInfo || a instanceof SetTransaction;
  }

  /** Whether a file's statistics say {@code column} is NULL in each of its rows. */
  static boolean allNull(String stats, String column) {
    if (stats == null || stats.isEmpty()) {
      return false;
    }
    try {
      JsonNode s = JSON.readTree(stats);
      JsonNode records = s.get("numRecords");
      JsonNode nulls = s.path("nullCount").get(column);
      return records != null && records.canConvertToLong() && nulls != null && nulls.canConvertToLong()
          && nulls.asLong() == records.asLong();
    } catch (Exception e) {
      return false;
    }
  }
}
