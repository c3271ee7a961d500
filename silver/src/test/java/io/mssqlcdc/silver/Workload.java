package io.mssqlcdc.silver;

import static io.mssqlcdc.fake.FakeRows.key;
import static io.mssqlcdc.fake.FakeRows.row;

import io.mssqlcdc.fake.FakeCdcDatabase;
import io.mssqlcdc.fake.Tx;
import io.mssqlcdc.lsn.Lsn;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * A random workload on {@code dbo.orders(order_id int PRIMARY KEY, code int UNIQUE, status)} of the
 * fake: multi-row transactions of inserts, updates, deletes, reinsertions of deleted keys, primary
 * key updates (SQL Server records them as a delete and an insert in one transaction) and updates of
 * the unique {@code code} (an update's before and after images then carry different codes: a key
 * move for a silver keyed by {@code code}). Every update changes a value (an update that changes
 * nothing writes no change row). At most one row has a NULL {@code code} (a unique index admits one).
 * Commit times come from a synthetic clock, 7 s apart.
 */
final class Workload {
  /** A committed transaction. */
  record Commit(Lsn lsn, LocalDateTime at) {}

  private record Order(Integer code, String status) {}

  private final FakeCdcDatabase db;
  private final Random rnd;
  private final TreeMap<Integer, Order> table = new TreeMap<>();
  private final Set<Integer> deleted = new HashSet<>();
  private final List<Commit> commits = new ArrayList<>();
  private int nextId = 1;
  private LocalDateTime clock = LocalDateTime.of(2026, 3, 1, 10, 0, 0);

  Workload(FakeCdcDatabase db, long seed) {
    this.db = db;
    this.rnd = new Random(seed);
  }

  /** Creates the table and enables CDC on it (capture instance {@code dbo_orders}). */
  static void createTable(FakeCdcDatabase db) {
    db.createTable("dbo", "orders", "order_id int", "code int", "status varchar(20)").key("order_id");
    db.enableCdc("dbo", "orders");
  }

  /** Commits {@code n} random transactions. */
  void commit(int n) {
    for (int i = 0; i < n; i++) {
      clock = clock.plusSeconds(7);
      List<Consumer<Tx>> ops = draw();
      commits.add(new Commit(db.commitAt(clock, tx -> ops.forEach(o -> o.accept(tx))), clock));
    }
  }

  /**
   * Queues {@code n} random transactions that the fake commits when the next snapshot reads the table (after its
   * stamp: {@code FakeCdcDatabase.commitBeforeRead}); the model ({@link #rows()}) has them at once, {@link #commits()}
   * never (their LSNs are known only when they commit).
   */
  void commitBeforeRead(int n) {
    for (int i = 0; i < n; i++) {
      List<Consumer<Tx>> ops = draw();
      db.commitBeforeRead(tx -> ops.forEach(o -> o.accept(tx)));
    }
  }

  /** One random transaction's statements (1-4), the model moved past them. */
  private List<Consumer<Tx>> draw() {
    TreeMap<Integer, Order> work = new TreeMap<>(table);
    Set<Integer> gone = new HashSet<>(deleted);
    List<Consumer<Tx>> ops = new ArrayList<>();
    int statements = 1 + rnd.nextInt(4);
    for (int s = 0; s < statements; s++) {
      ops.add(step(work, gone));
    }
    table.clear();
    table.putAll(work);
    deleted.clear();
    deleted.addAll(gone);
    return ops;
  }

  /** The commits so far, oldest first. */
  List<Commit> commits() {
    return List.copyOf(commits);
  }

  /** The workload's own model of the table now: order_id → [code, status], as text ("null" for NULL). */
  Map<String, List<String>> rows() {
    Map<String, List<String>> out = new TreeMap<>();
    table.forEach((id, o) -> out.put(String.valueOf(id), List.of(String.valueOf(o.code()), o.status())));
    return out;
  }

  /** The next commit time the workload would use. */
  LocalDateTime clock() {
    return clock;
  }

  private Consumer<Tx> step(TreeMap<Integer, Order> work, Set<Integer> gone) {
    int r = rnd.nextInt(100);
    if (work.isEmpty() || r < 25) {
      return insert(work, gone, nextId++);
    }
    Integer id = pick(work);
    Order o = work.get(id);
    if (r < 50) {
      String status;
      do {
        status = "u" + rnd.nextInt(100_000);
      } while (status.equals(o.status()));
      String st = status;
      work.put(id, new Order(o.code(), st));
      return tx -> tx.update("orders", row("order_id", id, "status", st));
    }
    if (r < 65) { // the unique code moves: a key move for a silver keyed by code
      Integer code = freshCode(work);
      work.put(id, new Order(code, o.status()));
      return tx -> tx.update("orders", row("order_id", id, "code", code));
    }
    if (r < 80) {
      work.remove(id);
      gone.add(id);
      return tx -> tx.delete("orders", key(id));
    }
    if (r < 90 && !gone.isEmpty()) { // a deleted key comes back
      Integer back = gone.stream().sorted().skip(rnd.nextInt(gone.size())).findFirst().orElseThrow();
      return insert(work, gone, back);
    }
    // a primary key update: SQL Server records a delete of the old key and an insert of the new one
    int to = nextId++;
    work.remove(id);
    gone.add(id);
    work.put(to, o);
    return tx -> tx.delete("orders", key(id)).insert("orders", row("order_id", to, "code", o.code(), "status",
        o.status()));
  }

  private Consumer<Tx> insert(TreeMap<Integer, Order> work, Set<Integer> gone, int id) {
    Integer code = freshCode(work);
    String status = "new" + rnd.nextInt(100);
    work.put(id, new Order(code, status));
    gone.remove(id);
    return tx -> tx.insert("orders", row("order_id", id, "code", code, "status", status));
  }

  private Integer pick(TreeMap<Integer, Order> work) {
    return work.keySet().stream().skip(rnd.nextInt(work.size())).findFirst().orElseThrow();
  }

  /** A code no row of {@code work} has; now and then NULL, when no row has NULL. */
  private Integer freshCode(Map<Integer, Order> work) {
    Set<Integer> used = new HashSet<>();
    boolean nullUsed = false;
    for (Order o : work.values()) {
      if (o.code() == null) {
        nullUsed = true;
      } else {
        used.add(o.code());
      }
    }
    if (!nullUsed && rnd.nextInt(10) == 0) {
      return null;
    }
    while (true) {
      int c = rnd.nextInt(500);
      if (!used.contains(c)) {
        return c;
      }
    }
  }
}
