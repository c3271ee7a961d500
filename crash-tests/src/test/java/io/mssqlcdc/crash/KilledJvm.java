package io.mssqlcdc.crash;

import io.mssqlcdc.testing.CrashPoint;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The third kind of crash (issue 29): the driver JVM killed. A kill case runs in a child JVM started here with
 * this JVM's options and class path ({@link #main}); when its armed point fires, the child prints a marker line
 * and waits; this JVM reads the line and kills the child with {@link Process#destroyForcibly()} (SIGKILL: no
 * shutdown hook, no {@code finally}, no background thread finishing its work), then the case carries on here
 * from the child's saved progress ({@link CrashCase.Progress}).
 */
final class KilledJvm {
  /** The line a child prints when its point fires. */
  static final String MARKER = "MSSQL_CDC_CRASH_POINT_REACHED ";
  /** How long a child may run before it is taken as hung. */
  private static final long CHILD_MINUTES = 15;
  private static final int TAIL_LINES = 200;

  private KilledJvm() {}

  /**
   * What the child did.
   *
   * @param killed it reported its point and was killed there
   * @param exitCode its exit code (when killed: what the kill left)
   * @param tail its last lines of output, for a failure's message
   */
  record Outcome(boolean killed, int exitCode, String tail) {}

  /** Runs {@code c} in a child JVM in {@code dir}; kills it when its point fires. */
  static Outcome run(CrashCase c, Path dir) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    for (String option : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      // the test JVM's heap and --add-opens (Spark needs them); not its agents, debugger or flight recorder
      if (!option.startsWith("-agentlib") && !option.startsWith("-javaagent") && !option.startsWith("-Xrunjdwp")
          && !option.startsWith("-XX:StartFlightRecording")) {
        command.add(option);
      }
    }
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(KilledJvm.class.getName());
    command.add(dir.toString());
    command.addAll(c.args());
    Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
    Deque<String> tail = new ArrayDeque<>();
    boolean killed = false;
    // a watchdog: a child that never reports nor ends is killed, and its outcome is a failure
    Thread watchdog = new Thread(() -> {
      try {
        if (!child.waitFor(CHILD_MINUTES, TimeUnit.MINUTES)) {
          child.destroyForcibly();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "crash-child-watchdog");
    watchdog.setDaemon(true);
    watchdog.start();
    try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = out.readLine()) != null) {
        if (tail.size() == TAIL_LINES) {
          tail.removeFirst();
        }
        tail.addLast(line);
        if (line.startsWith(MARKER)) {
          child.destroyForcibly();
          killed = true;
          break;
        }
      }
    }
    int exit = child.waitFor();
    watchdog.interrupt();
    return new Outcome(killed, exit, String.join("\n", tail));
  }

  /** In the child, at the armed point: reports it and waits for the kill (the point's thread never goes on). */
  static void reportAndWait(CrashPoint point) throws InterruptedException {
    System.out.println(MARKER + point.id());
    System.out.flush();
    new CountDownLatch(1).await();
  }

  /**
   * The child JVM: {@code <dir> <the case's arguments>}. Exits 0 when the case ran to its end without reaching its
   * point and its checks passed, 1 on a failure; killed when the point fires.
   */
  public static void main(String[] args) {
    int code = 1;
    try {
      CrashCase c = CrashCase.fromArgs(List.of(args).subList(1, args.length));
      c.runAsChild(Path.of(args[0]));
      System.out.println("the case ran to its end in the child JVM: " + c.describe());
      code = 0;
    } catch (Throwable t) {
      t.printStackTrace(System.out);
    } finally {
      System.out.flush();
      Runtime.getRuntime().halt(code); // Spark's threads would keep a plain exit waiting
    }
  }
}
