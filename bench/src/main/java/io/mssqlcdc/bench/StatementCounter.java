package io.mssqlcdc.bench;

import io.mssqlcdc.client.CdcClient;
import io.mssqlcdc.client.CdcClientProvider;
import io.mssqlcdc.fake.FakeCdcClientProvider;
import io.mssqlcdc.options.CdcReaderOptions;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Counts the statements the connector sends to the source: every {@link CdcClient} call is one
 * statement on SQL Server ({@code changes} and {@code readTable} open one cursor each; a
 * cursor's rows are not counted), so the calls of the clients opened on a fake directory, on
 * the driver and on (local) executors, are what a server would have been sent. The calls go to
 * a real {@code FakeCdcClient} unchanged; {@code StatementCounterContractTest} runs the
 * {@code CdcClient} contract over a counted client.
 *
 * <p>Registered as {@code backend=fake} ({@link Provider}, in this module's
 * {@code META-INF/services}, ahead of the fake's own on the runner's classpath); clients of
 * directories without a counter are the plain fake's.
 */
public final class StatementCounter implements AutoCloseable {
  private static final Map<String, StatementCounter> COUNTERS = new ConcurrentHashMap<>();

  /** One call: the method and when it was made (epoch ms). */
  public record Call(String method, long atMillis) {}

  private final String key;
  private final List<Call> calls = Collections.synchronizedList(new ArrayList<>());

  private StatementCounter(String key) {
    this.key = key;
  }

  /** Counts the calls of every {@code backend=fake} client opened on {@code dir} until {@link #close()}. */
  public static StatementCounter on(Path dir) {
    StatementCounter c = new StatementCounter(key(dir.toString()));
    if (COUNTERS.putIfAbsent(c.key, c) != null) {
      throw new IllegalStateException("a counter is already registered on " + dir);
    }
    return c;
  }

  /** A counter on no directory: counts what {@link #wrap} is given. */
  public static StatementCounter detached() {
    return new StatementCounter(null);
  }

  private static String key(String path) {
    return Path.of(path).toAbsolutePath().normalize().toString();
  }

  /** The calls so far, in order. */
  public List<Call> calls() {
    synchronized (calls) {
      return List.copyOf(calls);
    }
  }

  /** The calls made from {@code fromMillis} (inclusive) to {@code toMillis} (exclusive). */
  public List<Call> between(long fromMillis, long toMillis) {
    return calls().stream().filter(c -> c.atMillis() >= fromMillis && c.atMillis() < toMillis).toList();
  }

  /** {@code client}, with every call counted. */
  public CdcClient wrap(CdcClient client) {
    return (CdcClient) Proxy.newProxyInstance(CdcClient.class.getClassLoader(), new Class<?>[] {CdcClient.class},
        (proxy, m, args) -> {
          if (m.getDeclaringClass() != Object.class && !m.getName().equals("close")) {
            calls.add(new Call(m.getName(), System.currentTimeMillis()));
          }
          try {
            return m.invoke(client, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        });
  }

  @Override
  public void close() {
    if (key != null) {
      COUNTERS.remove(key, this);
    }
  }

  /** {@code backend=fake}: the fake's client, counted when a counter is registered on its directory. */
  public static final class Provider implements CdcClientProvider {
    @Override
    public String backend() {
      return "fake";
    }

    @Override
    public CdcClient open(CdcReaderOptions options) {
      CdcClient client = new FakeCdcClientProvider().open(options);
      StatementCounter c = options.fakePath().map(p -> COUNTERS.get(key(p))).orElse(null);
      return c == null ? client : c.wrap(client);
    }
  }
}
