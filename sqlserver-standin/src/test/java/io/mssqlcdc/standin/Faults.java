package io.mssqlcdc.standin;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The fault plan of a stand-in: what goes wrong, for which statement (or the login), how often.
 * Rules are tried in the order added; the first with attempts left applies and uses one. Thread
 * safe: Spark executors' connections share the plan.
 *
 * <pre>{@code
 * standIn.faults().on(Statement.CHANGES).afterRows(2).reset();      // connection reset mid-cursor, once
 * standIn.faults().on(Statement.MAX_LSN).times(2).error(1205);      // deadlock victim, twice
 * standIn.faults().onLogin().error(18456);                         // login failed
 * standIn.faults().on(Statement.PING).delay(Duration.ofSeconds(3)); // a slow response
 * }</pre>
 */
public final class Faults {
  /** What a fault does. */
  public enum Action { ERROR, RESET, DELAY }

  /** One rule: target (a statement, or null for the login), rows sent first, action, attempts left. */
  public static final class Fault {
    private final Statement target;
    private final boolean login;
    private final int afterRows;
    private final Action action;
    private final SqlError error;
    private final Duration delay;
    private final AtomicInteger left;
    private final AtomicInteger hits = new AtomicInteger();

    Fault(Statement target, boolean login, int afterRows, Action action, SqlError error, Duration delay, int times) {
      this.target = target;
      this.login = login;
      this.afterRows = afterRows;
      this.action = action;
      this.error = error;
      this.delay = delay;
      this.left = new AtomicInteger(times);
    }

    public int afterRows() {
      return afterRows;
    }

    public Action action() {
      return action;
    }

    public SqlError error() {
      return error;
    }

    public Duration delay() {
      return delay;
    }

    /** How many times the fault applied so far. */
    public int hits() {
      return hits.get();
    }

    boolean take(Statement s, boolean isLogin) {
      if (isLogin != login || (!login && target != null && target != s)) {
        return false;
      }
      while (true) {
        int n = left.get();
        if (n <= 0) {
          return false;
        }
        if (left.compareAndSet(n, n - 1)) {
          hits.incrementAndGet();
          return true;
        }
      }
    }
  }

  /** A rule being built. */
  public final class Builder {
    private final Statement target;
    private final boolean login;
    private int times = 1;
    private int afterRows;

    Builder(Statement target, boolean login) {
      this.target = target;
      this.login = login;
    }

    /** Applies to the next {@code n} matching requests (default 1); {@link Integer#MAX_VALUE} for all. */
    public Builder times(int n) {
      this.times = n;
      return this;
    }

    /** Sends {@code n} rows of the first result first (default 0: before any response). */
    public Builder afterRows(int n) {
      this.afterRows = n;
      return this;
    }

    /** Raises SQL Server error {@code number} (text, state and class as SQL Server sends them). */
    public Fault error(int number) {
      return add(new Fault(target, login, afterRows, Action.ERROR, SqlError.of(number, database, object()), null, times));
    }

    public Fault error(SqlError e) {
      return add(new Fault(target, login, afterRows, Action.ERROR, e, null, times));
    }

    /** Closes the connection abruptly (TCP reset) instead of sending the rest. */
    public Fault reset() {
      return add(new Fault(target, login, afterRows, Action.RESET, null, null, times));
    }

    /** Waits {@code d} before answering (an attention, e.g. the driver's query timeout, ends the wait). */
    public Fault delay(Duration d) {
      return add(new Fault(target, login, afterRows, Action.DELAY, null, d, times));
    }

    private String object() {
      return login ? user : "standin_CT";
    }
  }

  private final List<Fault> rules = new CopyOnWriteArrayList<>();
  private final String database;
  private final String user;

  Faults(String database, String user) {
    this.database = database;
    this.user = user;
  }

  /** A rule for requests of kind {@code s}; {@code null} for every statement. */
  public Builder on(Statement s) {
    return new Builder(s, false);
  }

  /** A rule for every statement. */
  public Builder onAny() {
    return new Builder(null, false);
  }

  /** A rule for logins (after PRELOGIN and LOGIN7, instead of LOGINACK). */
  public Builder onLogin() {
    return new Builder(null, true);
  }

  private Fault add(Fault f) {
    rules.add(f);
    return f;
  }

  public void clear() {
    rules.clear();
  }

  Optional<Fault> take(Statement s) {
    for (Fault f : rules) {
      if (f.take(s, false)) {
        return Optional.of(f);
      }
    }
    return Optional.empty();
  }

  Optional<Fault> takeLogin() {
    for (Fault f : rules) {
      if (f.take(null, true)) {
        return Optional.of(f);
      }
    }
    return Optional.empty();
  }
}
