package io.mssqlcdc.silver;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.expr;

import io.delta.tables.DeltaMergeBuilder;
import io.mssqlcdc.connector.CdcColumns;
import io.mssqlcdc.errors.SilverErrors;
import io.mssqlcdc.errors.SinkErrors;
import io.mssqlcdc.sink.tables.DeltaTables;
import io.mssqlcdc.sink.tables.KeyedRewrite;
import io.mssqlcdc.sink.tables.TableRef;
import io.mssqlcdc.sink.tables.TableRunner;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.classic.ExpressionUtils;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/** The silver table on Delta: created and given bronze's new columns, and the one MERGE of a call. */
final class SilverMerge {
  private SilverMerge() {}

  /**
   * Creates silver for {@code captured} when it does not exist; adds the captured columns it lacks
   * (a newer capture instance's, matched ignoring case; types are never changed).
   *
   * @throws io.mssqlcdc.errors.CdcConfigException when the table exists without silver's columns
   * @throws io.mssqlcdc.errors.CdcSchemaChangedException when a new column needs column mapping
   *     and the table has it off
   */
  static void ensure(SparkSession spark, TableRef silver, List<StructField> captured) {
    ensure(spark, silver, SilverTable.KIND, SilverTable.creationSchema(captured),
        List.of(CdcColumns.START_LSN, CdcColumns.COMMIT_TS), captured, "ApplyChanges");
  }

  /**
   * Creates a table of {@code kind} (captured columns, then the library's) when it does not exist;
   * checks that an existing one has the library's columns; adds the captured columns it lacks. Shared by
   * silver and the history ({@link HistoryTable}).
   *
   * @param library the library's columns the table must have (lower case)
   * @param writer the class that creates it, for the message
   */
  static void ensure(SparkSession spark, TableRef silver, io.mssqlcdc.sink.tables.TableKind kind,
      StructType creation, List<String> library, List<StructField> captured, String writer) {
    TableRunner.ensure(spark, silver, kind, creation);
    StructType schema = DeltaTables.schema(spark, silver);
    Set<String> have = new HashSet<>();
    for (String n : schema.fieldNames()) {
      have.add(n.toLowerCase(Locale.ROOT));
    }
    List<String> lacking = new ArrayList<>();
    for (String c : library) {
      if (!have.contains(c)) {
        lacking.add(c);
      }
    }
    if (!lacking.isEmpty()) {
      throw SilverErrors.conflict("target " + silver + " exists but is not a " + kind.name() + " table: it has no"
          + " column(s) " + lacking + ". Name a new table (" + writer + " creates it), or one an earlier call"
          + " created.");
    }
    List<StructField> missing = new ArrayList<>();
    for (StructField f : captured) {
      if (!have.contains(f.name().toLowerCase(Locale.ROOT))) {
        missing.add(new StructField(f.name(), f.dataType(), true, Metadata.empty()));
      }
    }
    if (missing.isEmpty()) {
      return;
    }
    List<String> mapped = missing.stream().map(StructField::name).filter(TableRunner::needsColumnMapping).toList();
    if (!mapped.isEmpty()) {
      String mode = DeltaTables.properties(spark, silver).getOrDefault("delta.columnMapping.mode", "none");
      if (mode.toLowerCase(Locale.ROOT).equals("none")) {
        throw SinkErrors.columnMappingRequired(silver.text(), mapped);
      }
    }
    DeltaTables.addColumns(spark, silver, missing);
  }

  /**
   * MERGEs {@code latest} (one row per key: the written columns and {@code _operation}) into silver
   * (one commit), with {@link MergeRules}; on a rebuild also deleting every key the source lacks.
   *
   * @param empty silver held no row when the call read it (its first call): insert only
   * @return Delta's metrics row ({@code num_affected_rows}, {@code num_updated_rows}, ...)
   */
  static Row merge(SparkSession spark, TableRef silver, Dataset<Row> latest, List<String> keys,
      List<String> written, boolean rebuild, Column pruning, boolean empty) {
    Column condition = expr(MergeRules.keyMatch(keys));
    if (pruning != null) {
      condition = condition.and(pruning);
    }
    DeltaMergeBuilder m = DeltaTables.table(spark, silver).as(MergeRules.TARGET)
        .merge(latest.as(MergeRules.SOURCE), condition);
    if (empty) {
      // Into an empty silver nothing matches: the insert clause alone is Delta's insert-only MERGE (no
      // materialization of the cached source, no join to rewrite files), and still inserts no key a concurrent
      // call inserted first.
      return m.whenNotMatched(MergeRules.insertWhen()).insertExpr(MergeRules.assignments(written)).execute().first();
    }
    m = m.whenMatched(MergeRules.deleteWhen()).delete()
        .whenMatched(MergeRules.updateWhen()).updateExpr(MergeRules.assignments(written))
        .whenNotMatched(MergeRules.insertWhen()).insertExpr(MergeRules.assignments(written));
    if (rebuild) {
      m = m.whenNotMatchedBySource().delete();
    }
    return m.execute().first();
  }

  /** The MERGE's target-only predicate for {@code plan} (null: none), on {@code t}'s key columns. */
  static Column pruning(KeyPruning.Plan plan, BronzeColumns bronze) {
    return pruning(plan, bronze, MergeRules.TARGET + ".");
  }

  /**
   * Silver's MERGE of a small ranking ({@link RankedChanges#isLocal}) in one pass over the files {@code prune}
   * leaves ({@link KeyedRewrite}, decision 0020): the same clauses and commit, the candidate files written in
   * the pass that matches them. Declined (nothing written) where that path does not apply.
   */
  static KeyedRewrite.Outcome rewrite(SparkSession spark, TableRef silver, RankedChanges ranked,
      BronzeColumns bronze, KeyPruning.Plan prune) {
    try {
      return KeyedRewrite.run(spark, silver, ranked.latest(), bronze.keys(), pruning(prune, bronze, ""), CLAUSES,
          ranked.keysApplied(), ONE_PASS, () -> { });
    } catch (LinkageError e) {
      return new KeyedRewrite.Outcome(null, "Delta's internal API is not as this build knows it (" + e + ")");
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException("the MERGE into " + silver + " failed: " + e.getMessage(), e);
    }
  }

  /** Silver's clauses for {@link KeyedRewrite} ({@link MergeRules}). */
  static final KeyedRewrite.Clauses CLAUSES = new KeyedRewrite.Clauses(MergeRules.deleteWhen(),
      MergeRules.updateWhen(), MergeRules.insertWhen());

  /**
   * The most candidate files, bytes and rows silver's one-pass MERGE writes again: a candidate holding none of
   * the batch's keys costs a write there, a read in Delta's MERGE; the candidates' keys are broadcast.
   */
  static final KeyedRewrite.Limits ONE_PASS = new KeyedRewrite.Limits(4, 32L << 20, 1_000_000);

  static Column pruning(KeyPruning.Plan plan, BronzeColumns bronze, String qualifier) {
    if (plan instanceof KeyPruning.Points p) {
      List<Column> each = new ArrayList<>();
      for (List<Object> tuple : p.tuples()) {
        Column one = null;
        for (int i = 0; i < p.keys().size(); i++) {
          String k = p.keys().get(i);
          Column t = col(qualifier + MergeRules.quote(k));
          Object v = tuple.get(i);
          Column c = v == null ? t.isNull() : t.equalTo(typed(v, bronze.type(k)));
          one = one == null ? c : one.and(c);
        }
        each.add(one);
      }
      return anyOf(each, 0, each.size());
    }
    if (plan instanceof KeyPruning.Ranges r) {
      Column all = null;
      for (KeyPruning.Range range : r.ranges()) {
        Column t = col(qualifier + MergeRules.quote(range.column()));
        DataType type = bronze.type(range.column());
        Column c = range.min() == null ? t.isNull()
            : t.geq(typed(range.min(), type)).and(t.leq(typed(range.max(), type)));
        if (range.min() != null && range.hasNull()) {
          c = c.or(t.isNull());
        }
        all = all == null ? c : all.and(c);
      }
      return all;
    }
    return null;
  }

  /**
   * {@code v} as a literal of type {@code t}: Delta's data skipping takes a comparison of a column with a literal
   * only, not with a cast of one (the MERGE's and the one pass's predicates are analyzed, not optimized, so a
   * cast would stay and every file would be read).
   */
  static Column typed(Object v, DataType t) {
    try {
      return ExpressionUtils.column(Literal.create(v, t));
    } catch (LinkageError e) {
      // A runtime whose Spark lacks this (internal) conversion: a cast literal, which the one pass folds and Delta's
      // MERGE does not skip files by.
      return org.apache.spark.sql.functions.lit(v).cast(t);
    }
  }

  /** A balanced OR tree (a long left-deep chain costs Catalyst deep recursion). */
  private static Column anyOf(List<Column> cs, int from, int to) {
    if (to - from == 1) {
      return cs.get(from);
    }
    int mid = (from + to) >>> 1;
    return anyOf(cs, from, mid).or(anyOf(cs, mid, to));
  }
}
