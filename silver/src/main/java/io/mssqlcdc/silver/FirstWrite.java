package io.mssqlcdc.silver;

import io.mssqlcdc.sink.tables.DeltaTables;
import io.mssqlcdc.sink.tables.DriverRead;
import io.mssqlcdc.sink.tables.NewFiles;
import io.mssqlcdc.sink.tables.Observed;
import io.mssqlcdc.sink.tables.TableRef;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.expressions.GenericRowWithSchema;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Silver's first call into a silver with no row, in one pass over bronze: the ranking runs inside the
 * write of its inserts ({@link NewFiles}), its statistics observed there ({@link RankedChanges#observed});
 * the call checks them (another table's capture instance, the snapshot probe, the plan) before the
 * commit, so a call that would fail or plan otherwise commits nothing. The ranking is not cached and
 * the rows are not read again by a MERGE: the insert-only MERGE of {@link FirstMerge} read the cached
 * ranking a second time and asked silver's state first.
 *
 * <p>Like {@link FirstMerge}: silver's version is read with its emptiness (the log's: no data file),
 * the write's transaction reads that version and registers the whole table as read, and unless the
 * commit produced the next version (a concurrent blind append, which Delta lets pass), the call's
 * MERGE runs too. Anything else ({@link Outcome#NOT_DONE}: silver not empty or moved, a conflicting
 * commit, the checks deciding otherwise, Delta's internal API not as this build knows it) leaves silver
 * as it was and the call takes the cached ranking and the MERGE.
 */
final class FirstWrite {
  private static final Logger LOG = LoggerFactory.getLogger(FirstWrite.class);
  /** How long the write's observation may take to complete after the write returned. */
  static final long OBSERVATION_WAIT_SECONDS = 60;

  private FirstWrite() {}

  /**
   * What the write did: committed ({@code ranked}: its statistics; the call's MERGE is done), or not (null);
   * {@code plan}: the plan the observed statistics decided, when the write ran (null: it did not run).
   */
  record Outcome(RankedChanges ranked, Row metrics, ApplyPlan plan) {
    static final Outcome NOT_DONE = new Outcome(null, null, null);

    boolean done() {
      return ranked != null;
    }

    Outcome withPlan(ApplyPlan decided) {
      return new Outcome(ranked, metrics, decided);
    }
  }

  /**
   * Writes the inserts of the ranking {@code observed} gives into {@code silver} when it holds no row, commits
   * them when {@code accept} takes the ranking's statistics (it throws to fail the call, returns false to plan
   * otherwise); {@code checked} runs after the files are written, before the commit (a test's hook).
   */
  static Outcome run(SparkSession spark, TableRef silver, Supplier<RankedChanges.Observed> observing,
      Predicate<RankedChanges> accept, Runnable checked) {
    long before = DeltaTables.version(spark, silver);
    if (DriverRead.hasFiles(spark, silver, before).orElse(true)) {
      return Outcome.NOT_DONE;
    }
    RankedChanges.Observed observed = observing.get();
    Optional<NewFiles> written;
    try {
      written = NewFiles.write(spark, silver, before, observed.inserts());
    } catch (LinkageError e) {
      LOG.debug("{}: the first write took another way ({})", silver, e.toString());
      return Outcome.NOT_DONE;
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException("the first write into " + silver + " failed: " + e.getMessage(), e);
    }
    if (written.isEmpty()) {
      return Outcome.NOT_DONE;
    }
    checked.run();
    Row stats = statistics(observed);
    if (stats == null) {
      LOG.warn("{}: the ranking's statistics were not observed within {} s of the first write: nothing committed,"
          + " the call MERGEs", silver, OBSERVATION_WAIT_SECONDS);
      return Outcome.NOT_DONE;
    }
    RankedChanges ranked = observed.ranked(stats);
    if (!accept.test(ranked)) {
      return Outcome.NOT_DONE;
    }
    Optional<Long> committed = written.get().commit();
    if (committed.isEmpty()) {
      return Outcome.NOT_DONE;
    }
    if (committed.get() > before + 1) {
      LOG.info("{} moved from version {} to {} during the first write (another writer): the call MERGEs too", silver,
          before, committed.get());
      return Outcome.NOT_DONE;
    }
    return new Outcome(ranked, new GenericRowWithSchema(new Object[] {ranked.keysApplied()}, METRICS), null);
  }

  /** The metrics row's schema: the keys written (inserts and the keys whose latest change is a delete). */
  static final StructType METRICS = new StructType().add("num_keys", DataTypes.LongType);

  private static Row statistics(RankedChanges.Observed observed) {
    try {
      return Observed.within(observed.observation(), OBSERVATION_WAIT_SECONDS).orElse(null);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }
}
