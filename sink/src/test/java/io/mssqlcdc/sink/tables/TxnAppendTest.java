package io.mssqlcdc.sink.tables;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.sink.SharedDeltaSpark;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link TxnAppend}: the same commits as Delta's own idempotent append, Delta's state asked only when
 * the writer does not know the app id's version, and every write Delta would skip skipped.
 */
@Tag("spark")
class TxnAppendTest {
  private static final Map<String, String> OPTIONS = Map.of("mergeSchema", "true", "userMetadata", "{\"batch\":1}");

  @TempDir Path tmp;
  SparkSession spark = SharedDeltaSpark.spark();

  private Dataset<Row> rows(String values) {
    return spark.sql("SELECT * FROM VALUES " + values + " AS t(id, name)");
  }

  private List<Row> history(String path) {
    return spark.sql("DESCRIBE HISTORY delta.`" + path + "`").orderBy("version").collectAsList();
  }

  /** The commit's actions by kind, from its JSON file. */
  private List<String> actionKinds(String path, long version) {
    return spark.read().text(path + String.format("/_delta_log/%020d.json", version)).collectAsList().stream()
        .map(r -> r.getString(0)).map(l -> l.substring(2, l.indexOf('"', 2))).sorted().collect(Collectors.toList());
  }

  @Test
  void itsCommitsAreThoseOfDeltasOwnIdempotentAppend() {
    String ours = tmp.resolve("ours").toString();
    String delta = tmp.resolve("delta").toString();
    rows("(0, 'x')").write().format("delta").save(ours);
    rows("(0, 'x')").write().format("delta").save(delta);
    TxnAppend writer = new TxnAppend(TableRef.of(ours), "app");
    assertThat(writer.append(rows("(1, 'a'), (2, 'b')"), 1, OPTIONS)).isEqualTo(TxnAppend.Outcome.WRITTEN);
    assertThat(writer.append(rows("(3, 'c')"), 2, OPTIONS)).isEqualTo(TxnAppend.Outcome.WRITTEN);
    assertThat(writer.checkedAppends()).as("the first asked Delta").isEqualTo(1);
    assertThat(writer.knownAppends()).as("the second followed its own commit").isEqualTo(1);
    for (long v = 1; v <= 2; v++) {
      DeltaTables.append(rows(v == 1 ? "(1, 'a'), (2, 'b')" : "(3, 'c')"), TableRef.of(delta),
          Map.of("mergeSchema", "true", "userMetadata", "{\"batch\":1}", "txnAppId", "app", "txnVersion",
              Long.toString(v)));
    }
    List<Row> a = history(ours);
    List<Row> b = history(delta);
    for (int v = 1; v <= 2; v++) {
      for (String column : List.of("operation", "operationParameters", "userMetadata", "isBlindAppend")) {
        assertThat(a.get(v).<Object>getAs(column)).as("%s of version %d", column, v)
            .isEqualTo(b.get(v).<Object>getAs(column));
      }
      Map<String, String> metricsA = a.get(v).getJavaMap(a.get(v).fieldIndex("operationMetrics"));
      Map<String, String> metricsB = b.get(v).getJavaMap(b.get(v).fieldIndex("operationMetrics"));
      assertThat(metricsA.keySet()).isEqualTo(metricsB.keySet());
      assertThat(metricsA.get("numOutputRows")).isEqualTo(metricsB.get("numOutputRows"));
      assertThat(actionKinds(ours, v)).isEqualTo(actionKinds(delta, v));
    }
    assertThat(actionKinds(ours, 2)).containsExactly("add", "commitInfo", "txn");
    assertThat(spark.read().format("delta").load(ours).count()).isEqualTo(4);
  }

  @Test
  void aVersionDeltaHoldsIsSkippedWhetherTheWriterKnowsItOrNot() {
    String p = tmp.resolve("t").toString();
    TableRef t = TableRef.of(p);
    TxnAppend writer = new TxnAppend(t, "app");
    assertThat(writer.append(rows("(1, 'a')"), 5, OPTIONS)).isEqualTo(TxnAppend.Outcome.WRITTEN);
    // A replay of the same version (a restart): not the next one, so Delta is asked.
    assertThat(writer.append(rows("(1, 'a')"), 5, OPTIONS)).isEqualTo(TxnAppend.Outcome.SKIPPED);
    assertThat(new TxnAppend(t, "app").append(rows("(1, 'a')"), 5, OPTIONS)).isEqualTo(TxnAppend.Outcome.SKIPPED);
    assertThat(writer.append(rows("(2, 'b')"), 6, OPTIONS)).isEqualTo(TxnAppend.Outcome.WRITTEN);

    // Another writer under the same app id commits version 7 first: the commits since say so.
    DeltaTables.append(rows("(3, 'elsewhere')"), t, Map.of("txnAppId", "app", "txnVersion", "7"));
    int known = writer.knownAppends();
    assertThat(writer.append(rows("(3, 'c')"), 7, OPTIONS)).isEqualTo(TxnAppend.Outcome.SKIPPED);
    assertThat(writer.knownAppends()).as("read from the commits since, not from Delta's state").isEqualTo(known + 1);

    // Commits of other writers (another app id, none) between two of its own do not make it ask Delta.
    assertThat(writer.append(rows("(4, 'd')"), 8, OPTIONS)).isEqualTo(TxnAppend.Outcome.WRITTEN);
    DeltaTables.append(rows("(5, 'other')"), t, Map.of("txnAppId", "backfill", "txnVersion", "1"));
    DeltaTables.append(rows("(6, 'plain')"), t, Map.of());
    int checked = writer.checkedAppends();
    assertThat(writer.append(rows("(7, 'e')"), 9, OPTIONS)).isEqualTo(TxnAppend.Outcome.WRITTEN);
    assertThat(writer.checkedAppends()).isEqualTo(checked);
    assertThat(spark.read().format("delta").load(p).selectExpr("sort_array(collect_list(id))").first().getList(0))
        .containsExactly(1, 2, 3, 4, 5, 6, 7);
  }

  /** The app id is registered as read, as Delta's own check does: a commit of it that lands meanwhile fails this one. */
  @Test
  void aConcurrentCommitOfTheSameAppIdFailsTheAppend() {
    String p = tmp.resolve("t").toString();
    TableRef t = TableRef.of(p);
    TxnAppend writer = new TxnAppend(t, "app");
    writer.append(rows("(1, 'a')"), 1, OPTIONS);
    // Another writer's commit, on a thread of its own (Delta's transactions are per thread), done before ours.
    writer.beforeCommit(() -> {
      Thread other = new Thread(() -> DeltaTables.append(rows("(2, 'elsewhere')"), t,
          Map.of("txnAppId", "app", "txnVersion", "2")));
      other.start();
      try {
        other.join();
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
    });
    assertThatThrownBy(() -> writer.append(rows("(2, 'b')"), 2, OPTIONS))
        .isInstanceOf(org.apache.spark.sql.delta.ConcurrentTransactionException.class);
    assertThat(writer.knownAppends()).as("the writer knew the version, and still conflicted").isEqualTo(1);
    // Nothing written twice; the next append asks Delta, which holds version 2.
    writer.beforeCommit(() -> { });
    assertThat(writer.append(rows("(2, 'b')"), 2, OPTIONS)).isEqualTo(TxnAppend.Outcome.SKIPPED);
    assertThat(spark.read().format("delta").load(p).count()).isEqualTo(2);
  }

  @Test
  void aTableMadeAgainAtTheSamePlaceIsAskedAbout() throws Exception {
    String p = tmp.resolve("t").toString();
    TableRef t = TableRef.of(p);
    TxnAppend writer = new TxnAppend(t, "app");
    writer.append(rows("(1, 'a')"), 1, OPTIONS);
    writer.append(rows("(2, 'b')"), 2, OPTIONS);
    // Replaced by another table at the same place, past the writer's commit, that holds version 3 of the app id.
    deleteTree(Path.of(p));
    rows("(0, 'z')").write().format("delta").save(p);
    DeltaTables.append(rows("(9, 'new')"), t, Map.of("txnAppId", "app", "txnVersion", "3"));
    DeltaTables.append(rows("(10, 'new')"), t, Map.of());
    DeltaTables.append(rows("(11, 'new')"), t, Map.of());
    int checked = writer.checkedAppends();
    assertThat(writer.append(rows("(3, 'c')"), 3, OPTIONS)).isEqualTo(TxnAppend.Outcome.SKIPPED);
    assertThat(writer.checkedAppends()).as("another table id: Delta asked").isEqualTo(checked + 1);
  }

  /** Commit files since the writer's last commit removed (a log retention shorter than a batch): Delta is asked. */
  @Test
  void commitsGoneSinceItsLastCommitAreAskedAbout() throws Exception {
    String p = tmp.resolve("t").toString();
    TableRef t = TableRef.of(p);
    TxnAppend writer = new TxnAppend(t, "app");
    writer.append(rows("(1, 'a')"), 1, OPTIONS);
    // Other writers' commits up to Delta's checkpoint at version 10 and one after it; the commit files before the
    // checkpoint removed, as log cleanup does (the table stays readable from the checkpoint).
    for (int i = 2; i <= 11; i++) {
      DeltaTables.append(rows("(" + (10 + i) + ", 'other')"), t, Map.of());
    }
    Path log = Path.of(p, "_delta_log");
    assertThat(log.resolve(String.format("%020d.checkpoint.parquet", 10))).exists();
    for (int v = 0; v < 10; v++) {
      java.nio.file.Files.delete(log.resolve(String.format("%020d.json", v)));
    }
    int checked = writer.checkedAppends();
    assertThat(writer.append(rows("(2, 'b')"), 2, OPTIONS)).isEqualTo(TxnAppend.Outcome.WRITTEN);
    assertThat(writer.checkedAppends()).as("the commits since could not be read: Delta asked").isEqualTo(checked + 1);
    assertThat(writer.append(rows("(2, 'b')"), 2, OPTIONS)).isEqualTo(TxnAppend.Outcome.SKIPPED);
    assertThat(spark.read().format("delta").load(p).where("name <> 'other'").count()).isEqualTo(2);
  }

  private static void deleteTree(Path root) throws java.io.IOException {
    try (var paths = java.nio.file.Files.walk(root)) {
      for (Path x : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
        java.nio.file.Files.delete(x);
      }
    }
  }
}
