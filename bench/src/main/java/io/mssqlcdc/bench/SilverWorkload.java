package io.mssqlcdc.bench;

import io.mssqlcdc.fake.FakeCdcDatabase;
import io.mssqlcdc.fake.FakeRows;
import io.mssqlcdc.fake.Tx;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The silver case's workload (issue 13 case 4) on {@code dbo.orders(id int PRIMARY KEY, name
 * nvarchar(40), amount decimal(18,2), qty bigint)}: {@code changes} change rows (bronze rows:
 * an insert or a delete is one, an update two, its before and after images) over
 * {@code keys = changes / 5} keys, in four phases committed in transactions of
 * {@link #opsPerCommit} row operations:
 * <ol>
 *   <li>every key inserted ({@code keys} rows): {@code name = "n-<k>"}, {@code amount = k/100},
 *       {@code qty = k};
 *   <li>{@code updates = (changes - 2 keys) / 2} updates, update {@code i} of key
 *       {@code i * 7919 mod keys} setting {@code name = "u-<i>"}, {@code amount = i/100} (each key
 *       about 1.5 times, spread over the whole run);
 *   <li>the keys with {@code k mod 5} in {0, 1, 2} deleted (3/5 of them);
 *   <li>the keys with {@code k mod 5} in {0, 1} inserted again: {@code name = "r-<k>"},
 *       {@code amount = 3k/100}, {@code qty = -k}.
 * </ol>
 * So silver ends with the keys {@code k mod 5 != 2} (4/5 of them), which a test computes without
 * the bench. Then {@link #batch} is a small incremental batch of {@code size} change rows, the
 * latest activity of an OLTP table: updates of the highest live keys, deletes of live keys just
 * below them (another group per batch) and inserts of new keys above {@code keys}.
 *
 * @param changes change rows of the big workload (a multiple of 25 keeps the phases exact)
 * @param batchSize change rows of an incremental batch (a multiple of 10)
 */
public record SilverWorkload(int changes, int batchSize) {
  /** Bumped when the generated changes change, so a cached fake database is written again. */
  static final int GENERATION = 1;

  public static final String TABLE = "orders";
  public static final String CAPTURE_INSTANCE = "dbo_orders";
  private static final long STRIDE = 7919; // a prime: i * STRIDE mod keys visits every key before repeating

  public SilverWorkload {
    if (changes < 25 || batchSize < 10) {
      throw new IllegalArgumentException("silver workload needs at least 25 changes and a batch of 10: " + changes
          + ", " + batchSize);
    }
  }

  public int keys() {
    return (changes / 25) * 5;
  }

  public int updates() {
    return (changes - 2 * keys()) / 2;
  }

  public int deletes() {
    return keys() / 5 * 3;
  }

  public int reinserts() {
    return keys() / 5 * 2;
  }

  /** The change rows the big workload writes (inserts + 2 updates + deletes + reinserts). */
  public long changeRows() {
    return keys() + 2L * updates() + deletes() + reinserts();
  }

  /** Row operations per transaction: 50 transactions at least, 5,000 operations at most. */
  public int opsPerCommit() {
    int ops = keys() + updates() + deletes() + reinserts();
    return Math.max(1, Math.min(5_000, ops / 50));
  }

  public String descriptor() {
    return "generation=" + GENERATION + " silver changes=" + changes + " keys=" + keys() + " perCommit="
        + opsPerCommit();
  }

  /** Creates the table, enables CDC and commits the big workload into {@code dir}'s new fake database. */
  public void write(Path dir) {
    try (FakeCdcDatabase db = FakeCdcDatabase.create(dir)) {
      db.createTable("dbo", TABLE, "id int", "name nvarchar(40)", "amount decimal(18,2)", "qty bigint").key("id");
      db.enableCdc("dbo", TABLE);
      List<Consumer<Tx>> ops = new ArrayList<>();
      int k = keys();
      for (int key = 0; key < k; key++) {
        ops.add(insert(key, "n-" + key, BigDecimal.valueOf(key, 2), key));
      }
      for (int i = 0; i < updates(); i++) {
        int key = (int) ((i * STRIDE) % k);
        String name = "u-" + i;
        BigDecimal amount = BigDecimal.valueOf(i, 2);
        ops.add(tx -> tx.update(TABLE, FakeRows.row("id", key, "name", name, "amount", amount)));
      }
      for (int key = 0; key < k; key++) {
        if (key % 5 <= 2) {
          int gone = key;
          ops.add(tx -> tx.delete(TABLE, FakeRows.key(gone)));
        }
      }
      for (int key = 0; key < k; key++) {
        if (key % 5 <= 1) {
          ops.add(insert(key, "r-" + key, BigDecimal.valueOf(3L * key, 2), -key));
        }
      }
      commitInGroups(db, ops, opsPerCommit());
    }
  }

  /** Keys changed by a batch: updated, deleted, inserted. */
  public record BatchKeys(List<Integer> updated, List<Integer> deleted, List<Integer> inserted) {}

  /**
   * The keys of incremental batch {@code r} (0, 1, ...): the {@code 2 size/5} highest live keys
   * below {@code keys} are updated, the {@code r}-th group of {@code size/10} live keys below them
   * deleted, and {@code size/10} new keys from {@code keys + r size/10} inserted.
   */
  public BatchKeys batchKeys(int r) {
    int updates = batchSize * 2 / 5;
    int deletes = batchSize / 10;
    int inserts = batchSize / 10;
    List<Integer> live = new ArrayList<>();
    int need = updates + (r + 1) * deletes;
    for (int key = keys() - 1; key >= 0 && live.size() < need; key--) {
      if (key % 5 != 2) {
        live.add(key);
      }
    }
    if (live.size() < need) {
      throw new IllegalArgumentException("batch " + r + " of " + batchSize + " changes needs " + need
          + " live keys; the workload has " + live.size() + ": use more changes or a smaller batch");
    }
    List<Integer> inserted = new ArrayList<>();
    for (int j = 0; j < inserts; j++) {
      inserted.add(keys() + r * inserts + j);
    }
    return new BatchKeys(List.copyOf(live.subList(0, updates)),
        List.copyOf(live.subList(updates + r * deletes, updates + (r + 1) * deletes)), List.copyOf(inserted));
  }

  /** Commits incremental batch {@code r} into {@code db} (in 10 transactions). */
  public void batch(FakeCdcDatabase db, int r) {
    BatchKeys b = batchKeys(r);
    List<Consumer<Tx>> ops = new ArrayList<>();
    for (int key : b.updated()) {
      String name = "b" + r + "-" + key;
      ops.add(tx -> tx.update(TABLE, FakeRows.row("id", key, "name", name, "qty", (long) r)));
    }
    for (int key : b.deleted()) {
      ops.add(tx -> tx.delete(TABLE, FakeRows.key(key)));
    }
    for (int key : b.inserted()) {
      ops.add(insert(key, "i" + r + "-" + key, BigDecimal.valueOf(key, 2), key));
    }
    commitInGroups(db, ops, Math.max(1, ops.size() / 10));
  }

  private static Consumer<Tx> insert(int key, String name, BigDecimal amount, long qty) {
    Map<String, Object> row = new LinkedHashMap<>();
    row.put("id", key);
    row.put("name", name);
    row.put("amount", amount);
    row.put("qty", qty);
    return tx -> tx.insert(TABLE, row);
  }

  private static void commitInGroups(FakeCdcDatabase db, List<Consumer<Tx>> ops, int perCommit) {
    for (int from = 0; from < ops.size(); from += perCommit) {
      List<Consumer<Tx>> group = ops.subList(from, Math.min(ops.size(), from + perCommit));
      db.commit(tx -> group.forEach(o -> o.accept(tx)));
    }
  }
}
