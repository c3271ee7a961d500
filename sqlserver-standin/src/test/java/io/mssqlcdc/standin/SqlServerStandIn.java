package io.mssqlcdc.standin;

import io.mssqlcdc.standin.tds.Login7;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A SQL Server wire stand-in for tests: a TDS 7.4 server on a loopback port that mssql-jdbc
 * connects to, answering {@code SqlCdcClient}'s statements ({@link Statement}) from a fake CDC
 * database directory, with a scriptable {@link Faults} plan. It proves the client path through
 * the real driver (login, RPC prepared statements, TDS decoding, cursors, cancels, error
 * classification); it does not prove T-SQL semantics, which only the integration suite against
 * a real SQL Server does (docs/SQLSERVER.md).
 *
 * <p>Loud on the unknown: a statement no {@link Statement} recognises, a request type it does
 * not serve, or a failure inside the stand-in is answered with an error and recorded, and
 * {@link #close()} then fails with all of them, so a statement cannot slip past untested even
 * where the client swallows the error.
 */
public final class SqlServerStandIn implements AutoCloseable {
  /** One statement the stand-in answered: its kind, how it came (SQL batch, sp_executesql, ...), text and parameters. */
  public record Executed(Statement kind, String via, String sql, List<String> params) {}

  private static final int LOG_LIMIT = 20_000;
  private static final java.lang.management.ThreadMXBean THREADS =
      java.lang.management.ManagementFactory.getThreadMXBean();

  private final Path fakeDirectory;
  private final StandInOptions options;
  private final ServerSocket listener;
  private final Faults faults;
  private final List<Session> sessions = new CopyOnWriteArrayList<>();
  private final List<Executed> executed = Collections.synchronizedList(new ArrayList<>());
  private final List<String> problems = new CopyOnWriteArrayList<>();
  private final List<Login7> logins = new CopyOnWriteArrayList<>();
  private final AtomicInteger connections = new AtomicInteger();
  private final AtomicInteger attentions = new AtomicInteger();
  private final Thread acceptor;
  /** The stand-in's threads still running, and the CPU time of those that ended (serverCpuNanos). */
  private final Set<Thread> liveThreads = new HashSet<>();
  private long endedThreadsCpuNanos;
  private volatile boolean closed;

  private SqlServerStandIn(Path fakeDirectory, StandInOptions options) throws IOException {
    this.fakeDirectory = fakeDirectory;
    this.options = options;
    this.faults = new Faults(options.database(), options.user());
    this.listener = new ServerSocket();
    listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
    this.acceptor = thread(this::acceptLoop, "standin-accept-" + listener.getLocalPort());
  }

  /** Serves the fake database in {@code fakeDirectory} with the default options. */
  public static SqlServerStandIn start(Path fakeDirectory) {
    return start(fakeDirectory, StandInOptions.defaults());
  }

  public static SqlServerStandIn start(Path fakeDirectory, StandInOptions options) {
    try {
      return new SqlServerStandIn(fakeDirectory, options);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot listen on a loopback port", e);
    }
  }

  private void acceptLoop() {
    while (!closed) {
      try {
        Socket s = listener.accept();
        connections.incrementAndGet();
        Session session = new Session(this, s);
        sessions.add(session);
        thread(session, "standin-session-" + connections.get());
      } catch (IOException e) {
        if (!closed) {
          problems.add("accept failed: " + e);
        }
        return;
      }
    }
  }

  /** Starts a daemon thread of the stand-in's, whose CPU time {@link #serverCpuNanos()} counts. */
  Thread thread(Runnable body, String name) {
    Thread t = new Thread(() -> {
      try {
        body.run();
      } finally {
        long cpu = THREADS.isCurrentThreadCpuTimeSupported() ? THREADS.getCurrentThreadCpuTime() : 0;
        synchronized (liveThreads) {
          liveThreads.remove(Thread.currentThread());
          endedThreadsCpuNanos += Math.max(0, cpu);
        }
      }
    }, name);
    t.setDaemon(true);
    synchronized (liveThreads) {
      liveThreads.add(t);
    }
    t.start();
    return t;
  }

  /**
   * The CPU time the stand-in's own threads (acceptor, sessions and their readers: the fake's reads
   * and the TDS encoding, the work a real server does on its own machine) have used since it
   * started, ended threads included; 0 where the JVM does not measure thread CPU time. The bench
   * takes it out of the {@code backend=jdbc} path's CPU to measure the client's share apart.
   */
  public long serverCpuNanos() {
    if (!THREADS.isThreadCpuTimeSupported()) {
      return 0;
    }
    synchronized (liveThreads) {
      long sum = endedThreadsCpuNanos;
      for (Thread t : liveThreads) {
        sum += Math.max(0, THREADS.getThreadCpuTime(t.getId())); // -1: not started yet, or just ended
      }
      return sum;
    }
  }

  public int port() {
    return listener.getLocalPort();
  }

  /**
   * A JDBC URL for this stand-in: login, database, {@code encrypt=false} (plain TDS), and
   * {@code extra} properties appended ({@code "key=value;..."}, may be empty).
   */
  public String jdbcUrl(String extra) {
    return "jdbc:sqlserver://127.0.0.1:" + port() + ";databaseName=" + options.database() + ";user=" + options.user()
        + ";password=" + options.password() + ";encrypt=false" + (extra == null || extra.isEmpty() ? "" : ";" + extra);
  }

  public String jdbcUrl() {
    return jdbcUrl("");
  }

  public Faults faults() {
    return faults;
  }

  public StandInOptions options() {
    return options;
  }

  Path fakeDirectory() {
    return fakeDirectory;
  }

  /** The statements answered so far (the first {@value #LOG_LIMIT}), in order. */
  public List<Executed> executed() {
    synchronized (executed) {
      return List.copyOf(executed);
    }
  }

  public void clearExecuted() {
    executed.clear();
  }

  /** The LOGIN7 records received (passwords are not printed by their toString). */
  public List<Login7> logins() {
    return logins;
  }

  /** Connections accepted so far. */
  public int connections() {
    return connections.get();
  }

  /** Attentions (cancels) the client sent and the stand-in acknowledged. */
  public int attentions() {
    return attentions.get();
  }

  void attentionAcknowledged() {
    attentions.incrementAndGet();
  }

  /** Unknown statements and stand-in failures so far. */
  public List<String> problems() {
    return List.copyOf(problems);
  }

  void record(Executed e) {
    if (executed.size() < LOG_LIMIT) {
      executed.add(e);
    }
  }

  void unknown(String what) {
    problems.add("unknown statement or request: " + what);
  }

  void failure(String what, Throwable t) {
    java.io.StringWriter w = new java.io.StringWriter();
    t.printStackTrace(new java.io.PrintWriter(w));
    problems.add("stand-in failure: " + what + "\n" + w);
  }

  /** Drops every open connection (as a server restart or a network cut does), keeping the listener. */
  public void dropConnections() {
    for (Session s : sessions) {
      s.close();
    }
    sessions.clear();
  }

  /**
   * Stops listening and closes every connection.
   *
   * @throws AssertionError naming every unknown statement and stand-in failure seen
   */
  @Override
  public void close() {
    closed = true;
    try {
      listener.close();
    } catch (IOException e) {
      // closing anyway
    }
    dropConnections();
    if (!problems.isEmpty()) {
      throw new AssertionError("The SQL Server stand-in saw " + problems.size() + " problem(s):\n" + String.join("\n", problems));
    }
  }
}
