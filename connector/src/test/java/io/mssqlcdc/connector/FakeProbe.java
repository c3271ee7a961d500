package io.mssqlcdc.connector;

import io.mssqlcdc.client.CdcClient;
import io.mssqlcdc.client.CdcClientProvider;
import io.mssqlcdc.client.ChangeCursor;
import io.mssqlcdc.client.RowCursor;
import io.mssqlcdc.errors.CdcErrors;
import io.mssqlcdc.errors.CdcSourceUnavailableException;
import io.mssqlcdc.fake.FakeCdcClientProvider;
import io.mssqlcdc.options.CdcReaderOptions;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.spark.TaskContext;

/**
 * The connector tests' only {@link CdcClient} double: the file-backed fake, observed. Every call
 * goes to a real {@code FakeCdcClient}, so the answers are the fake's (and pass the contract
 * suite: {@code FakeProbeContractTest}); the probe only
 *
 * <ul>
 *   <li>records the calls and counts the clients opened and closed (driver and executors: local
 *       Spark runs executors in this JVM);
 *   <li>makes the next calls of a method fail as SQL Server does once the client's retries are
 *       exhausted ({@link CdcSourceUnavailableException}, a dropped connection);
 *   <li>makes cursors fail, or hold until released, after some rows (a connection dropped in the
 *       middle of a read; a task cancelled while it reads).
 * </ul>
 *
 * A test registers a probe on a fake database directory ({@link #on}); while it is registered,
 * {@code backend=fake} clients opened on that directory (through {@link Provider}, registered in
 * the test resources ahead of the fake's own provider) are observed. Other directories get the
 * plain fake.
 */
public final class FakeProbe implements AutoCloseable {
  private static final Map<String, FakeProbe> PROBES = new ConcurrentHashMap<>();
  /** Only guards against a hung test: waits end as soon as the awaited state is reached. */
  private static final Duration HANG_GUARD = Duration.ofMinutes(2);

  private final String key;
  private final List<String> calls = Collections.synchronizedList(new ArrayList<>());
  private final Map<String, AtomicInteger> failures = new ConcurrentHashMap<>();
  private final List<Client> clients = new ArrayList<>();
  private volatile int failCursorsAfter = -1;
  private volatile int holdCursorsAfter = -1;
  private volatile CountDownLatch release = new CountDownLatch(0);
  private final AtomicInteger held = new AtomicInteger();
  private final AtomicInteger cancelled = new AtomicInteger();

  private FakeProbe(String key) {
    this.key = key;
  }

  /** A probe that observes the clients it {@link #wrap}s, not registered on a directory. */
  public static FakeProbe detached() {
    return new FakeProbe(null);
  }

  /** Observes every {@code backend=fake} client opened on {@code dir} until {@link #close()}. */
  public static FakeProbe on(Path dir) {
    FakeProbe p = new FakeProbe(key(dir.toString()));
    if (PROBES.putIfAbsent(p.key, p) != null) {
      throw new IllegalStateException("a probe is already registered on " + dir);
    }
    return p;
  }

  private static String key(String path) {
    return Path.of(path).toAbsolutePath().normalize().toString();
  }

  @Override
  public void close() {
    if (key != null) {
      PROBES.remove(key, this);
    }
    release();
  }

  // ---- observations ------------------------------------------------------------------------

  /** Every call made through observed clients and their cursors' {@code close}, in order. */
  public List<String> calls() {
    synchronized (calls) {
      return List.copyOf(calls);
    }
  }

  /** How many calls of {@code method} were made. */
  public long calls(String method) {
    return calls().stream().filter(method::equals).count();
  }

  public synchronized int clientsOpened() {
    return clients.size();
  }

  /** Clients opened and not closed yet. */
  public synchronized int clientsOpen() {
    return (int) clients.stream().filter(c -> !c.closed).count();
  }

  /** Clients that opened a change or row cursor (the executors' clients). */
  public synchronized int readersOpened() {
    return (int) clients.stream().filter(c -> c.read).count();
  }

  /** Waits until every client opened so far is closed; false if that did not happen (a leak). */
  public synchronized boolean awaitAllClosed() throws InterruptedException {
    long deadline = System.nanoTime() + HANG_GUARD.toNanos();
    while (clientsOpen() > 0) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
    return true;
  }

  // ---- faults ------------------------------------------------------------------------------

  /** The next {@code times} calls of {@code method} fail as a dropped connection does. */
  public FakeProbe failNext(String method, int times) {
    failures.computeIfAbsent(method, m -> new AtomicInteger()).set(times);
    return this;
  }

  /** Failures armed by {@link #failNext} and not raised yet. */
  public int failuresLeft(String method) {
    AtomicInteger n = failures.get(method);
    return n == null ? 0 : n.get();
  }

  /** Cursors opened from now on fail on the {@code next()} after their {@code rows}-th row. */
  public FakeProbe failCursorsAfter(int rows) {
    failCursorsAfter = rows;
    return this;
  }

  /**
   * Cursors opened from now on block in the {@code next()} after their {@code rows}-th row until
   * {@link #release()} or until their Spark task is cancelled (then they fail).
   */
  public FakeProbe holdCursorsAfter(int rows) {
    release = new CountDownLatch(1);
    holdCursorsAfter = rows;
    return this;
  }

  /** Waits until a cursor is held by {@link #holdCursorsAfter}; false if none got there. */
  public synchronized boolean awaitHeld() throws InterruptedException {
    long deadline = System.nanoTime() + HANG_GUARD.toNanos();
    while (held.get() == 0) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
    return true;
  }

  /** Lets held cursors go on (they then read as usual). */
  public void release() {
    holdCursorsAfter = -1;
    release.countDown();
  }

  /** Held cursors whose wait ended because their Spark task was cancelled (interrupted or killed). */
  public int cancelledWhileHeld() {
    return cancelled.get();
  }

  private void maybeFail(String method) {
    AtomicInteger n = failures.get(method);
    if (n != null && n.getAndUpdate(v -> Math.max(0, v - 1)) > 0) {
      throw unavailable(method);
    }
  }

  private static CdcSourceUnavailableException unavailable(String what) {
    return CdcErrors.sourceUnavailable(what, 4, "Connection reset (SQLState 08S01)", null);
  }

  // ---- wrapping ----------------------------------------------------------------------------

  /** {@code client}, observed by this probe. */
  public CdcClient wrap(CdcClient client) {
    Client c = new Client(client);
    synchronized (this) {
      clients.add(c);
    }
    return (CdcClient) Proxy.newProxyInstance(CdcClient.class.getClassLoader(), new Class<?>[] {CdcClient.class}, c);
  }

  private synchronized void closed(Client c) {
    c.closed = true;
    notifyAll();
  }

  private synchronized void read(Client c) {
    c.read = true;
  }

  private synchronized void heldOne() {
    held.incrementAndGet();
    notifyAll();
  }

  private static Object call(Object target, Method m, Object[] args) throws Throwable {
    try {
      return m.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  private static Object identity(Object proxy, Method m, Object[] args, Object target) {
    return switch (m.getName()) {
      case "equals" -> proxy == args[0];
      case "hashCode" -> System.identityHashCode(proxy);
      default -> "probe(" + target + ")";
    };
  }

  private final class Client implements InvocationHandler {
    private final CdcClient target;
    private boolean closed;
    private boolean read;

    Client(CdcClient target) {
      this.target = target;
    }

    @Override
    public Object invoke(Object proxy, Method m, Object[] args) throws Throwable {
      if (m.getDeclaringClass() == Object.class) {
        return identity(proxy, m, args, target);
      }
      String name = m.getName();
      calls.add(name);
      if (name.equals("close")) {
        try {
          return call(target, m, args);
        } finally {
          closed(this);
        }
      }
      maybeFail(name);
      Object result = call(target, m, args);
      if (result instanceof ChangeCursor || result instanceof RowCursor) {
        read(this);
        Class<?> type = result instanceof ChangeCursor ? ChangeCursor.class : RowCursor.class;
        return Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, new Cursor(result, name));
      }
      return result;
    }
  }

  private final class Cursor implements InvocationHandler {
    private final Object target;
    private final String opener;
    private final int failAfter = failCursorsAfter;
    private final int holdAfter = holdCursorsAfter;
    private final CountDownLatch gate = release;
    private int rows;

    Cursor(Object target, String opener) {
      this.target = target;
      this.opener = opener;
    }

    @Override
    public Object invoke(Object proxy, Method m, Object[] args) throws Throwable {
      if (m.getDeclaringClass() == Object.class) {
        return identity(proxy, m, args, target);
      }
      switch (m.getName()) {
        case "next" -> {
          if (rows == failAfter) {
            throw unavailable(opener + " cursor");
          }
          if (rows == holdAfter) {
            hold();
          }
          Object more = call(target, m, args);
          if (Boolean.TRUE.equals(more)) {
            rows++;
          }
          return more;
        }
        case "close" -> {
          calls.add(opener + " cursor close");
          return call(target, m, args);
        }
        default -> {
          return call(target, m, args);
        }
      }
    }

    /**
     * Blocks until released, or until the Spark task reading the cursor is cancelled: its thread
     * interrupted, or the task marked killed (Spark kills without an interrupt unless asked, and
     * gives no callback, so the mark is looked at every 10 ms).
     */
    private void hold() {
      heldOne();
      long deadline = System.nanoTime() + HANG_GUARD.toNanos();
      try {
        while (!gate.await(10, TimeUnit.MILLISECONDS)) {
          TaskContext task = TaskContext.get();
          if (task != null && task.isInterrupted()) {
            cancelled.incrementAndGet();
            throw new IllegalStateException("task killed while held");
          }
          if (System.nanoTime() > deadline) {
            throw new IllegalStateException("a held cursor was never released");
          }
        }
      } catch (InterruptedException e) {
        cancelled.incrementAndGet();
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while held (task cancelled)", e);
      }
    }
  }

  /**
   * {@code backend=fake}, registered in the connector's test resources ahead of the fake's own
   * provider: the fake's client, observed when a probe is registered on its directory.
   */
  public static final class Provider implements CdcClientProvider {
    @Override
    public String backend() {
      return "fake";
    }

    @Override
    public CdcClient open(CdcReaderOptions options) {
      CdcClient client = new FakeCdcClientProvider().open(options);
      FakeProbe probe = options.fakePath().map(p -> PROBES.get(key(p))).orElse(null);
      return probe == null ? client : probe.wrap(client);
    }
  }
}
