package io.mssqlcdc.sink.tables;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.delta.OptimisticTransaction;
import org.apache.spark.sql.delta.Snapshot;
import org.apache.spark.sql.delta.VersionChecksum;
import org.apache.spark.sql.delta.actions.AddFile;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.unsafe.types.UTF8String;
import scala.Option;
import scala.jdk.javaapi.CollectionConverters;

/**
 * A snapshot's files as its checksum lists them: Delta keeps every {@code AddFile} (with its statistics)
 * in the version's checksum when the table has few files ({@code allFilesInCrc}, 50 by default), computed
 * from the previous version's list and the commit. Read on the driver, without computing the table's
 * state (a Spark job over its log). Taken only when the list agrees with the checksum's own file count and
 * size, as Delta checks it when it writes it.
 */
public final class ChecksumFiles {
  private ChecksumFiles() {}

  /**
   * The newest snapshot of {@code ref} this JVM knows (no listing of its log) when its checksum lists its files;
   * empty otherwise. A hint for whether a write will need Delta's table state: the write checks its own snapshot.
   */
  static Optional<Snapshot> newestListed(SparkSession spark, TableRef ref) {
    try {
      Optional<LogVersion.Log> log = LogVersion.log(spark, ref);
      if (log.isEmpty()) {
        return Optional.empty();
      }
      Snapshot s = log.get().log().unsafeVolatileSnapshot();
      return of(s).isPresent() ? Optional.of(s) : Optional.empty();
    } catch (Exception | LinkageError e) {
      return Optional.empty();
    }
  }

  /**
   * Whether every row of {@code ref} at {@code version} holds one of {@code values} (exactly) or NULL in the
   * string column {@code column}, proven on the driver from the statistics of the files its checksum lists:
   * each file's minimum and maximum equal and among {@code values} (Delta truncates a long string's
   * bounds so that they differ), or the column NULL in all its rows. False whenever it is not proven (no
   * file list in the checksum, a file without the column's statistics, another snapshot than this JVM's
   * newest, a collated column, a table with column mapping): the caller then reads the rows.
   */
  public static boolean holdsOnly(SparkSession spark, TableRef ref, long version, String column, Set<String> values) {
    Optional<List<StatsSkipping.Stats>> files = stringStats(spark, ref, version, column);
    if (files.isEmpty()) {
      return false;
    }
    for (StatsSkipping.Stats stats : files.get()) {
      if (stats.allNull(column)) {
        continue;
      }
      String min = text(stats.bound("minValues", column));
      if (min == null || !min.equals(text(stats.bound("maxValues", column))) || !values.contains(min)) {
        return false;
      }
    }
    return true;
  }

  /**
   * Whether a file of {@code ref} at {@code version} may hold a row for which {@code predicate} holds, read on the
   * driver from the statistics of the files its checksum lists ({@link StatsSkipping}: conservative, a file is
   * ruled out only when its bounds prove that no row matches); empty when the checksum does not list them,
   * {@code version} is not this JVM's newest snapshot or the table maps its columns: the caller then reads the
   * rows.
   */
  public static Optional<Boolean> mayHold(SparkSession spark, TableRef ref, long version,
      org.apache.spark.sql.Column predicate) {
    try {
      Optional<Listed> listed = listed(spark, ref, version);
      if (listed.isEmpty()) {
        return Optional.empty();
      }
      org.apache.spark.sql.catalyst.expressions.Expression e = KeyedRewrite.resolved(spark,
          listed.get().snapshot().metadata().schema(), predicate);
      for (AddFile f : listed.get().files()) {
        if (StatsSkipping.mayMatch(e, StatsSkipping.Stats.parse(f.stats()))) {
          return Optional.of(true);
        }
      }
      return Optional.of(false);
    } catch (Exception | LinkageError e) {
      return Optional.empty();
    }
  }

  /**
   * The largest maximum of the string column {@code column} among the statistics of the files the checksum of
   * {@code ref} at {@code version} lists: a guess of the column's largest value (exact for values Delta does not
   * truncate, that is up to 32 characters), for work started ahead and checked against the value read; empty
   * when a file has no such statistic, or under the conditions {@link #holdsOnly} names.
   */
  public static Optional<String> largest(SparkSession spark, TableRef ref, long version, String column) {
    Optional<List<StatsSkipping.Stats>> files = stringStats(spark, ref, version, column);
    String top = null;
    for (StatsSkipping.Stats stats : files.orElse(List.of())) {
      if (stats.allNull(column)) {
        continue;
      }
      String max = text(stats.bound("maxValues", column));
      if (max == null) {
        return Optional.empty();
      }
      top = top == null || UTF8String.fromString(max).binaryCompare(UTF8String.fromString(top)) > 0 ? max : top;
    }
    return Optional.ofNullable(top);
  }

  /**
   * The statistics of each file the checksum of {@code ref} at {@code version} (this JVM's newest snapshot) lists,
   * when {@code column} is a top-level string column without a collation under that exact name; empty otherwise.
   */
  private static Optional<List<StatsSkipping.Stats>> stringStats(SparkSession spark, TableRef ref, long version,
      String column) {
    try {
      Optional<Listed> listed = listed(spark, ref, version);
      StructField field = listed.isEmpty() ? null
          : find(listed.get().snapshot().metadata().schema().fields(), column);
      if (field == null || !field.dataType().equals(DataTypes.StringType)) {
        return Optional.empty();
      }
      return Optional.of(listed.get().files().stream().map(f -> StatsSkipping.Stats.parse(f.stats())).toList());
    } catch (Exception | LinkageError e) {
      return Optional.empty();
    }
  }

  /** A snapshot and the files its checksum lists. */
  private record Listed(Snapshot snapshot, List<AddFile> files) {}

  /**
   * This JVM's newest snapshot of {@code ref} with the files its checksum lists, when it is {@code version} and
   * its statistics are keyed by column names; empty otherwise.
   */
  private static Optional<Listed> listed(SparkSession spark, TableRef ref, long version) throws Exception {
    Optional<LogVersion.Log> log = LogVersion.log(spark, ref);
    if (log.isEmpty()) {
      return Optional.empty();
    }
    Snapshot s = log.get().log().unsafeVolatileSnapshot();
    Optional<List<AddFile>> files = s.version() == version && unmapped(s) ? of(s) : Optional.empty();
    return files.map(f -> new Listed(s, f));
  }

  /**
   * Whether the snapshot's statistics are keyed by its columns' names: with column mapping they are keyed by
   * physical names, which a rename can make another column's logical name.
   */
  private static boolean unmapped(Snapshot s) {
    return s.metadata().columnMappingMode() == org.apache.spark.sql.delta.NoMapping$.MODULE$;
  }

  private static String text(com.fasterxml.jackson.databind.JsonNode node) {
    return node == null || !node.isTextual() ? null : node.textValue();
  }

  private static StructField find(StructField[] fields, String name) {
    for (StructField f : fields) {
      if (f.name().equals(name)) {
        return f;
      }
    }
    return null;
  }

  /** The snapshot's files; empty when its checksum does not hold them. */
  static Optional<List<AddFile>> of(Snapshot snapshot) {
    try {
      Option<VersionChecksum> crc = snapshot.checksumOpt();
      if (crc.isEmpty() || crc.get().allFiles().isEmpty()) {
        return Optional.empty();
      }
      List<AddFile> files = CollectionConverters.asJava(crc.get().allFiles().get());
      long bytes = files.stream().mapToLong(AddFile::size).sum();
      if (files.size() != crc.get().numFiles() || bytes != crc.get().tableSizeBytes()) {
        return Optional.empty();
      }
      return Optional.of(List.copyOf(files));
    } catch (LinkageError e) {
      return Optional.empty();
    }
  }

  /**
   * The files that may hold rows satisfying {@code predicate}, registered as read by {@code txn} (its conflict
   * checks see them and the predicate, as after Delta's {@code filterFiles}). When the snapshot's checksum
   * holds its files (Delta keeps them there for a table of few files, checked against the checksum's file
   * count and size), their statistics are read on the driver ({@link StatsSkipping}: no Spark job and no
   * computed table state); otherwise Delta's {@code filterFiles}.
   */
  static List<AddFile> candidates(OptimisticTransaction txn,
      org.apache.spark.sql.catalyst.expressions.Expression predicate) {
    scala.collection.immutable.Seq<org.apache.spark.sql.catalyst.expressions.Expression> filters =
        CollectionConverters.asScala(List.of(predicate)).toSeq();
    Optional<List<AddFile>> known = ChecksumFiles.of(txn.snapshot());
    if (known.isEmpty()) {
      return CollectionConverters.asJava(txn.filterFiles(filters, true));
    }
    List<AddFile> files = new ArrayList<>();
    for (AddFile f : known.get()) {
      if (StatsSkipping.mayMatch(predicate, StatsSkipping.Stats.parse(f.stats()))) {
        files.add(f);
      }
    }
    txn.trackReadPredicates(filters, false, true);
    txn.trackFilesRead(CollectionConverters.asScala(files).toSeq());
    return files;
  }
}
