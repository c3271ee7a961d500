package io.mssqlcdc.crash;

import static io.mssqlcdc.fake.FakeRows.key;
import static io.mssqlcdc.fake.FakeRows.row;

import io.mssqlcdc.fake.FakeCdcDatabase;
import io.mssqlcdc.fake.Tx;
import io.mssqlcdc.lsn.Lsn;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * A random history on {@code dbo.orders(order_id int PRIMARY KEY, code int, status varchar(20))} of
 * the fake, and the model of it the checks compare with: every committed transaction's change rows
 * (as SQL Server's CDC records them: an insert is operation 2, a delete 1, an update 3 and 4 with the
 * whole before and after row; a primary key update a delete and an insert in one transaction) and
 * the table after it, computed here in plain Java from the operations drawn, not by the library.
 *
 * <p>Transactions hold 1-4 statements (several on one key included); between them, now and then an
 * idle mapping entry (capture writing without changes). Commit times come from a synthetic clock,
 * 7 s apart.
 *
 * <p>A schema change with a capture-instance switch ({@link #switchInstance}): a nullable column
 * {@code note varchar(20)} added and a second capture instance {@value #NEW_INSTANCE} enabled, whose
 * start LSN is the next commit's; the older one captures on (without the column) until
 * {@link #dropOldInstance}. From the switch on, inserts carry a note and some updates change it;
 * rows that existed before keep a NULL note until an update sets one, as SQL Server's added column
 * leaves them.
 */
final class History implements java.io.Serializable {
  private static final long serialVersionUID = 1L;

  /** A row of the table: its key and its two other columns. */
  record Order(int id, Integer code, String status, String note) implements java.io.Serializable {
    Order(int id, Integer code, String status) {
      this(id, code, status, null);
    }
  }

  /** One change row: the operation and the row image it carries. */
  record Change(int op, Order row) implements java.io.Serializable {}

  /** A committed transaction (no changes: an idle entry), with the table after it. */
  record Commit(Lsn lsn, LocalDateTime at, List<Change> changes, Map<Integer, Order> after)
      implements java.io.Serializable {}

  static final String TABLE = "orders";
  static final String CAPTURE_INSTANCE = "dbo_orders";
  /** The capture instance {@link #switchInstance} enables, with the added column. */
  static final String NEW_INSTANCE = "dbo_orders_v2";

  /** Not saved with the model (a kill case's progress, {@link CrashCase}): {@link #reattach} sets it again. */
  private transient FakeCdcDatabase db;
  private final Random rnd;
  private final TreeMap<Integer, Order> table = new TreeMap<>();
  private final TreeSet<Integer> deleted = new TreeSet<>();
  private final List<Commit> commits = new ArrayList<>();
  /** For each purge, the last LSN committed before the round it purged (what the stream could have read). */
  private final List<Lsn> purgedAfter = new ArrayList<>();
  private int readable;
  private int nextId = 1;
  /** The capture instances enabled, oldest first. */
  private final List<String> instances = new ArrayList<>(List.of(CAPTURE_INSTANCE));
  /** The note draws after {@link #switchInstance} (null before: the other draws stay as a case without a switch). */
  private Random notes;
  private LocalDateTime clock = LocalDateTime.of(2026, 3, 1, 10, 0, 0);

  History(FakeCdcDatabase db, Random rnd) {
    this.db = db;
    this.rnd = rnd;
    db.createTable("dbo", TABLE, "order_id int", "code int", "status varchar(20)").key("order_id");
    db.enableCdc("dbo", TABLE);
  }

  /** The model saved by a killed JVM, on the same database opened again by the one that carries on. */
  void reattach(FakeCdcDatabase db) {
    this.db = db;
  }

  /** Commits {@code n} random transactions, with idle entries now and then. */
  void commit(int n) {
    for (int i = 0; i < n; i++) {
      clock = clock.plusSeconds(7);
      if (rnd.nextInt(8) == 0) {
        Lsn idle = db.idleAt(clock);
        commits.add(new Commit(idle, clock, List.of(), Map.copyOf(table)));
        clock = clock.plusSeconds(7);
      }
      List<Change> changes = new ArrayList<>();
      List<Consumer<Tx>> ops = new ArrayList<>();
      int statements = 1 + rnd.nextInt(4);
      for (int s = 0; s < statements; s++) {
        ops.add(statement(changes));
      }
      Lsn lsn = db.commitAt(clock, tx -> ops.forEach(o -> o.accept(tx)));
      commits.add(new Commit(lsn, clock, List.copyOf(changes), Map.copyOf(table)));
    }
  }

  /**
   * CDC cleanup purging the changes committed since the last call of this method or of
   * {@link #streamed}, all but the last commit's: the low watermark moves to the last commit. The
   * stream has not read them; the pipeline must re-snapshot. Returns the new low watermark.
   */
  Lsn purgeUnread(FakeCdcDatabase db) {
    if (commits.size() - readable < 2) {
      throw new IllegalStateException("a purge needs two commits since the stream last read");
    }
    purgedAfter.add(commits.get(readable - 1).lsn());
    Lsn low = commits.get(commits.size() - 1).lsn();
    for (String instance : instances) {
      db.cleanup(instance, low);
    }
    return low;
  }

  /**
   * The schema change and the capture-instance switch: {@code note varchar(20)} added to the table and
   * {@value #NEW_INSTANCE} enabled (the older instance stays); {@code notes} draws the notes from then on.
   */
  void switchInstance(Random notes) {
    if (this.notes != null) {
      throw new IllegalStateException("the history switched its capture instance already");
    }
    clock = clock.plusSeconds(7);
    db.addColumn("dbo." + TABLE, "note varchar(20)");
    db.enableCdc("dbo", TABLE, NEW_INSTANCE);
    instances.add(NEW_INSTANCE);
    this.notes = notes;
  }

  /** {@code sys.sp_cdc_disable_table} of the older instance, after the switch. */
  void dropOldInstance() {
    if (instances.size() != 2) {
      throw new IllegalStateException("no older capture instance to drop: " + instances);
    }
    db.disableCdc(instances.remove(0));
  }

  /** Whether the table has the note column (after {@link #switchInstance}). */
  boolean switched() {
    return notes != null;
  }

  /** The stream has read every commit so far. */
  void streamed() {
    readable = commits.size();
  }

  /** The LSNs of {@link #purgeUnread}: for each purge, the last commit before the purged ones. */
  List<Lsn> purgedAfter() {
    return List.copyOf(purgedAfter);
  }

  /** Every commit so far (idle entries too), oldest first. */
  List<Commit> commits() {
    return List.copyOf(commits);
  }

  /** The table now. */
  Map<Integer, Order> table() {
    return Map.copyOf(table);
  }

  /** The table as of {@code lsn}: after the last commit at or below it. */
  Map<Integer, Order> tableAt(Lsn lsn) {
    Map<Integer, Order> at = Map.of();
    for (Commit c : commits) {
      if (c.lsn().isAfter(lsn)) {
        break;
      }
      at = c.after();
    }
    return at;
  }

  /**
   * One transaction of {@code statements} statements drawn from {@code draw} (not the history's own draws: a case
   * that takes no large transaction draws the rest of its history as before).
   */
  void commitLarge(Random draw, int statements) {
    clock = clock.plusSeconds(7);
    List<Change> changes = new ArrayList<>();
    List<Consumer<Tx>> ops = new ArrayList<>();
    for (int s = 0; s < statements; s++) {
      ops.add(statement(changes, draw));
    }
    Lsn lsn = db.commitAt(clock, tx -> ops.forEach(o -> o.accept(tx)));
    commits.add(new Commit(lsn, clock, List.copyOf(changes), Map.copyOf(table)));
  }

  private Consumer<Tx> statement(List<Change> changes) {
    return statement(changes, rnd);
  }

  /** Draws one statement, applies it to the model and returns it for the fake's transaction. */
  private Consumer<Tx> statement(List<Change> changes, Random rnd) {
    int r = rnd.nextInt(100);
    if (table.isEmpty() || r < 25) {
      return insert(nextId++, changes, rnd);
    }
    int id = pick(rnd);
    Order o = table.get(id);
    if (r < 45) {
      String status = "s" + rnd.nextInt(100_000);
      if (status.equals(o.status())) {
        status = status + "x";
      }
      return update(o, new Order(id, o.code(), status, o.note()), changes);
    }
    if (r < 60) {
      Integer code = o.code() != null && rnd.nextInt(6) == 0 ? null : rnd.nextInt(1000);
      if (java.util.Objects.equals(code, o.code())) {
        code = (o.code() == null ? 0 : o.code()) + 1000;
      }
      return update(o, new Order(id, code, o.status(), o.note()), changes);
    }
    if (r < 75) {
      table.remove(id);
      deleted.add(id);
      changes.add(new Change(1, o));
      return tx -> tx.delete(TABLE, key(id));
    }
    if (r < 87 && !deleted.isEmpty()) { // a deleted key comes back
      int back = deleted.stream().skip(rnd.nextInt(deleted.size())).findFirst().orElseThrow();
      return insert(back, changes, rnd);
    }
    // a primary key update: SQL Server records a delete of the old key and an insert of the new one
    int to = nextId++;
    Order moved = new Order(to, o.code(), o.status(), o.note());
    table.remove(id);
    deleted.add(id);
    table.put(to, moved);
    changes.add(new Change(1, o));
    changes.add(new Change(2, moved));
    return tx -> tx.delete(TABLE, key(id)).insert(TABLE, image(moved));
  }

  private Consumer<Tx> insert(int id, List<Change> changes, Random rnd) {
    Order o = new Order(id, rnd.nextInt(5) == 0 ? null : rnd.nextInt(1000), "n" + rnd.nextInt(1000), newNote());
    table.put(id, o);
    deleted.remove(id);
    changes.add(new Change(2, o));
    return tx -> tx.insert(TABLE, image(o));
  }

  private Consumer<Tx> update(Order before, Order after, List<Change> changes) {
    if (notes != null && notes.nextInt(3) == 0) { // after the switch, a third of the updates set the note too
      after = new Order(after.id(), after.code(), after.status(), newNote());
    }
    Order a = after;
    table.put(a.id(), a);
    changes.add(new Change(3, before));
    changes.add(new Change(4, a));
    return tx -> tx.update(TABLE, image(a));
  }

  /** A new row's note: none before the switch; after it, a drawn one (1 in 4 NULL). */
  private String newNote() {
    return notes == null || notes.nextInt(4) == 0 ? null : "t" + notes.nextInt(1000);
  }

  /** The row as the fake takes it: the note only once the table has the column. */
  private Map<String, Object> image(Order o) {
    return notes == null ? row("order_id", o.id(), "code", o.code(), "status", o.status())
        : row("order_id", o.id(), "code", o.code(), "status", o.status(), "note", o.note());
  }

  private int pick(Random rnd) {
    return table.keySet().stream().skip(rnd.nextInt(table.size())).findFirst().orElseThrow();
  }
}
