package io.mssqlcdc.sink.tables;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.delta.OptimisticTransaction;
import org.apache.spark.sql.delta.Snapshot;
import org.apache.spark.sql.delta.VersionChecksum;
import org.apache.spark.sql.delta.actions.AddFile;
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
