package io.mssqlcdc.crash;

import io.mssqlcdc.lsn.Lsn;
import io.mssqlcdc.silver.ApplyResult;
import io.mssqlcdc.testing.CrashPoint;
import io.mssqlcdc.testing.CrashPointException;
import io.mssqlcdc.testing.CrashPoints;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.streaming.StreamingQuery;

/**
 * One case of the crash suite: a random history (from {@code seed}) streamed, applied and reconciled
 * in rounds, with one crash armed at {@code point} (its {@code nth} hit) of {@code kind}; the step it
 * fires in is run again, as a restart on the same checkpoint and tables would. Then {@link Checks}
 * compares every table with the history's model.
 */
final class CrashCase {
  /** How a crash happens. */
  enum Kind {
    /** An exception thrown at the point (the process dies there, its JVM state survives). */
    EXCEPTION,
    /** The query is stopped from another thread while its batch is at the point (a stop mid-batch). */
    STOP,
    /**
     * The driver JVM killed at the point: the case runs in a child JVM ({@link KilledJvm}), which the test kills
     * ({@code destroyForcibly}) when it reports the point; this JVM then carries on from the step that was cut, on
     * the same checkpoint, tables and database, as a restarted driver would. Nothing the child held in memory
     * survives (the facts committer's held rows, caches, open transactions).
     */
    KILL
  }

  /** The points the case draws from, and the most hits of each its rounds reach for sure. */
  static final List<CrashPoint> POINTS = List.of(CrashPoint.SINK_BEFORE_BRONZE, CrashPoint.SINK_AFTER_BRONZE,
      CrashPoint.SINK_FACTS_COMMIT, CrashPoint.SINK_AFTER_FACTS, CrashPoint.SNAPSHOT_AFTER_STAMP,
      CrashPoint.SNAPSHOT_AFTER_APPEND, CrashPoint.SILVER_AFTER_CONTROL_READ, CrashPoint.SILVER_AFTER_MERGE,
      CrashPoint.SILVER_AFTER_POSITION, CrashPoint.RESNAPSHOT_AFTER_RECOVERING, CrashPoint.RESNAPSHOT_BEFORE_SWITCH,
      CrashPoint.HISTORY_AFTER_MERGE, CrashPoint.HISTORY_AFTER_POSITION);
  /** The points of a chunked bootstrap and its backfill waves, drawn by chunked cases only. */
  static final List<CrashPoint> CHUNKED_POINTS = List.of(CrashPoint.CHUNKED_AFTER_OPEN, CrashPoint.BACKFILL_AFTER_READ,
      CrashPoint.BACKFILL_AFTER_APPEND);
  /** The points a chunked case does not reach: a full snapshot's and a re-snapshot's. */
  static final List<CrashPoint> FULL_SNAPSHOT_POINTS = List.of(CrashPoint.SNAPSHOT_AFTER_STAMP,
      CrashPoint.SNAPSHOT_AFTER_APPEND, CrashPoint.RESNAPSHOT_AFTER_RECOVERING, CrashPoint.RESNAPSHOT_BEFORE_SWITCH);
  /**
   * The points of a chunked re-snapshot, drawn by a third of the chunked cases that purge: the recovery begun, and
   * the re-snapshot's open row written before the state file switches generation (a full re-snapshot's
   * {@code resnapshot.beforeGenerationSwitch} is not on the chunked path).
   */
  static final List<CrashPoint> CHUNKED_RESNAPSHOT_POINTS = List.of(CrashPoint.RESNAPSHOT_AFTER_RECOVERING,
      CrashPoint.CHUNKED_AFTER_OPEN);
  /** Points on a query's own thread, where a stop can interrupt the batch. */
  static final List<CrashPoint> STOPPABLE = List.of(CrashPoint.SINK_BEFORE_BRONZE, CrashPoint.SINK_AFTER_BRONZE,
      CrashPoint.SINK_AFTER_FACTS);

  final long seed;
  final CrashPoint point;
  final Kind kind;
  final int nth;
  final int rounds;
  /** The round whose changes CDC cleanup purges before the stream reads them (a re-snapshot), or -1. */
  final int purgeRound;
  /**
   * Whether the bootstrap is a chunked snapshot completed by backfill waves (a chunked point given, or drawn for 1
   * seed in 4 from a draw of its own, the other draws unchanged); such a case purges only in the long mode (half of
   * them, round 2 or later), and its re-snapshot is chunked too.
   */
  final boolean chunked;
  /** A chunked case's chunk size (1-3 rows: several chunks and waves of a small table). */
  final int chunkRows;
  /**
   * The round that also commits one large transaction (200-799 statements), or -1: 1 seed in 4, from draws of its
   * own ({@link #largeDraw}, which also draws the transaction's statements), the other draws of a seed unchanged.
   */
  final int largeRound;
  final int largeStatements;
  private final Random largeDraw;
  /**
   * The round that starts with the schema change and the capture-instance switch ({@link History#switchInstance}),
   * or -1: 1 seed in 4, from draws of their own, the other draws unchanged (in a chunked case the later waves are
   * read after the switch).
   */
  final int switchRound;
  /** Whether the older capture instance is dropped at the start of the round after the switch. */
  final boolean dropOld;
  /**
   * Whether the switch is made while the round's query runs (half of the switches, not in kill cases): the query has
   * read the round's first transactions, then the column is added, the newer instance enabled and more committed;
   * the query must stop at the newer instance's start and ask for a restart, which the case does.
   */
  final boolean switchWhileRunning;
  /** The note draws the switch hands to the history. */
  private final Random noteDraw;
  /** The case's draws; a kill case carries on with the child's (saved with its {@link Progress}). */
  private Random rnd;
  private final List<String> log = new ArrayList<>();
  /** The constructor's arguments as given (before any draw), for the child JVM to make the same case. */
  private final String[] given;
  /** True in the child JVM of a kill case: it saves its progress before each step and waits to be killed. */
  private boolean child;
  private volatile CompletableFuture<StreamingQuery> current = new CompletableFuture<>();
  private String firedIn;
  private LocalDateTime lastVerdict;
  /**
   * The generation whose snapshot the history's first call applied (the newest in bronze then: it starts there, as
   * silver does), or -1 before that call.
   */
  private int historyGeneration = -1;

  /** The case of {@code seed}; {@code point}, {@code kind} and {@code nth} (0: drawn) drawn from it unless given. */
  CrashCase(long seed, CrashPoint point, Kind kind, int nth, int rounds) {
    this.given = new String[] {Long.toString(seed), point == null ? "-" : point.id(), kind == null ? "-" : kind.name(),
        Integer.toString(nth), Integer.toString(rounds)};
    if (rounds < 2) {
      throw new IllegalArgumentException("a case needs 2 rounds or more (the first streams, the next apply), not " + rounds);
    }
    this.seed = seed;
    this.rounds = rounds;
    Random draw = new Random(seed ^ 0x5DEECE66DL);
    Random chunkDraw = new Random(seed * 7919 + 17);
    boolean drawChunked = chunkDraw.nextInt(4) == 0;
    // A chunked case purges in half of the long mode's cases (a draw of its own), in round 2 or later: round 1's
    // backfill completes the bootstrap first, and the re-snapshot is chunked too, completed by that round's backfill.
    Random chunkPurgeDraw = new Random(seed * 0x61C8864680B583EBL + 11);
    boolean chunkedPurge = rounds >= 3 && chunkPurgeDraw.nextBoolean();
    int chunkedPurgeRound = rounds >= 3 ? 2 + chunkPurgeDraw.nextInt(rounds - 2) : -1;
    // A third of those crash in the chunked re-snapshot: its recovery begun, or its open (the second open).
    CrashPoint resnapshotDrawn = chunkedPurge && chunkPurgeDraw.nextInt(3) == 0
        ? CHUNKED_RESNAPSHOT_POINTS.get(chunkPurgeDraw.nextInt(CHUNKED_RESNAPSHOT_POINTS.size())) : null;
    CrashPoint drawn = POINTS.get(draw.nextInt(POINTS.size()));
    // (a replay names a chunked re-snapshot's point: a seed that draws one is chunked again)
    this.chunked = point != null ? CHUNKED_POINTS.contains(point)
        || (drawChunked && chunkedPurge && CHUNKED_RESNAPSHOT_POINTS.contains(point)) : drawChunked;
    this.chunkRows = 1 + chunkDraw.nextInt(3);
    CrashPoint chunkedDrawn = CHUNKED_POINTS.get(chunkDraw.nextInt(CHUNKED_POINTS.size()));
    // a chunked case takes no full snapshot: those points are not drawn for it (its re-snapshot's are, above)
    boolean fullOnly = FULL_SNAPSHOT_POINTS.contains(drawn);
    this.point = point != null ? point : chunked && resnapshotDrawn != null ? resnapshotDrawn
        : chunked && (fullOnly || chunkDraw.nextBoolean()) ? chunkedDrawn : drawn;
    Kind k = kind != null ? kind : draw.nextInt(3) == 0 ? Kind.STOP : Kind.EXCEPTION;
    // a kill (any point), for 1 seed in 6 from a draw of its own: the other draws of a seed stay as they were
    if (kind == null && new Random(seed * 31 + 7).nextInt(6) == 0) {
      k = Kind.KILL;
    }
    this.kind = k == Kind.KILL || STOPPABLE.contains(this.point) ? k : Kind.EXCEPTION;
    int drawnNth = switch (this.point) {
      // bootstrap's snapshot; the re-snapshot's, if the case purges, is their second hit
      case SNAPSHOT_AFTER_STAMP, SNAPSHOT_AFTER_APPEND -> 1;
      case RESNAPSHOT_AFTER_RECOVERING, RESNAPSHOT_BEFORE_SWITCH -> 1;
      // the bootstrap's open; a chunked re-snapshot's is the second
      case CHUNKED_AFTER_OPEN -> chunked && resnapshotDrawn == CrashPoint.CHUNKED_AFTER_OPEN ? 2 : 1;
      // round 0's one wave (a small table may need no second)
      case BACKFILL_AFTER_READ, BACKFILL_AFTER_APPEND -> 1;
      case SILVER_AFTER_CONTROL_READ, SILVER_AFTER_MERGE, SILVER_AFTER_POSITION, SINK_FACTS_COMMIT, HISTORY_AFTER_MERGE,
          HISTORY_AFTER_POSITION ->
          1 + draw.nextInt(rounds - 1);
      default -> 1 + draw.nextInt(4);
    };
    this.nth = nth > 0 ? nth : drawnNth;
    boolean resnapshotPoint = this.point == CrashPoint.RESNAPSHOT_AFTER_RECOVERING
        || this.point == CrashPoint.RESNAPSHOT_BEFORE_SWITCH;
    int purge = resnapshotPoint || draw.nextInt(3) == 0 ? 1 + draw.nextInt(rounds - 1) : -1;
    this.purgeRound = chunked ? (chunkedPurge ? chunkedPurgeRound : -1) : purge;
    this.rnd = new Random(seed);
    this.largeDraw = new Random(seed * 0x9E3779B97F4A7C15L + 3); // mixed: close seeds give close first draws
    this.largeRound = largeDraw.nextInt(4) == 0 ? largeDraw.nextInt(rounds) : -1;
    this.largeStatements = 200 + largeDraw.nextInt(600);
    Random switchDraw = new Random(seed * 0x2545F4914F6CDD1DL + 5);
    boolean drawSwitch = switchDraw.nextInt(4) == 0;
    int drawnSwitchRound = 1 + switchDraw.nextInt(rounds - 1);
    this.switchRound = drawSwitch ? drawnSwitchRound : -1;
    this.dropOld = switchDraw.nextBoolean();
    this.noteDraw = new Random(switchDraw.nextLong());
    boolean running = switchDraw.nextBoolean();
    this.switchWhileRunning = switchRound >= 0 && running && this.kind != Kind.KILL;
  }

  /** One line naming the case, for reports. */
  String describe() {
    return "seed " + seed + ", point " + point.id() + " (hit " + nth + "), kind " + kind
        + (purgeRound < 0 ? "" : ", purge in round " + purgeRound)
        + (chunked ? ", chunked bootstrap (" + chunkRows + " rows a chunk)" : "")
        + (largeRound < 0 ? "" : ", a transaction of " + largeStatements + " statements in round " + largeRound)
        + (switchRound < 0 ? "" : ", a column added and the capture instance switched in round " + switchRound
            + (switchWhileRunning ? " while the query ran" : "") + (dropOld ? ", the older dropped after it" : ""));
  }

  /** The command that runs this case alone. */
  String replay() {
    return "mvn -B -ntp -pl crash-tests -am verify -Dtest=CrashSuiteTest -Dsurefire.failIfNoSpecifiedTests=false"
        + " -Dtest.repository.skip -Dpython.skip -Dcrash.seed=" + seed + " -Dcrash.point=" + point.id()
        + " -Dcrash.kind=" + kind + " -Dcrash.nth=" + nth + " -Dcrash.rounds=" + rounds;
  }

  /** Where the crash fired ("stream round 1", ...), or null if the case never reached it. */
  String firedIn() {
    return firedIn;
  }

  /** Runs the case in {@code dir}; throws an AssertionError naming the case and its replay command on a failure. */
  void run(Path dir) {
    try {
      if (kind == Kind.KILL) {
        runKilled(dir);
      } else {
        runSteps(dir, null);
      }
    } catch (Throwable t) {
      throw new AssertionError("crash case failed: " + describe() + ", " + rounds + " rounds" + "; fired in: " + firedIn + "\nsteps: " + log
          + "\nreplay: " + replay() + "\n" + t, t);
    } finally {
      CrashPoints.disarm();
    }
  }

  /**
   * Where a case is before one of its steps, as a kill case's child saves it (Java serialization, in the case's
   * directory): the model with the draws' state (one stream, so the history keeps sharing the case's
   * {@code Random}), the round and step, the round's batch size, the last verdict and the steps so far.
   */
  record Progress(History history, Random rnd, int round, int step, String stepName, int perBatch,
      LocalDateTime lastVerdict, int historyGeneration, List<String> log) implements java.io.Serializable {
    static final String FILE = "kill-progress.bin";

    void save(Path dir) {
      Path tmp = dir.resolve(FILE + ".tmp");
      try (java.io.ObjectOutputStream out = new java.io.ObjectOutputStream(java.nio.file.Files.newOutputStream(tmp))) {
        out.writeObject(this);
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
      try {
        java.nio.file.Files.move(tmp, dir.resolve(FILE), java.nio.file.StandardCopyOption.REPLACE_EXISTING,
            java.nio.file.StandardCopyOption.ATOMIC_MOVE);
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }

    static Progress load(Path dir) {
      try (java.io.ObjectInputStream in = new java.io.ObjectInputStream(
          java.nio.file.Files.newInputStream(dir.resolve(FILE)))) {
        return (Progress) in.readObject();
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      } catch (ClassNotFoundException e) {
        throw new IllegalStateException(e);
      }
    }
  }

  /** The steps of a round, in order: {@code STREAM}, {@code BACKFILL} (chunked cases), {@code APPLY} (rounds 1..). */
  private static final int STREAM = 0;
  private static final int BACKFILL = 1;
  private static final int APPLY = 2;

  /**
   * A kill case: the child JVM runs the case until the point reports (then it is killed) or to its end (then it has
   * checked the tables itself); after a kill this JVM opens the same database and tables and carries on from the
   * step that was cut.
   */
  private void runKilled(Path dir) throws Exception {
    java.nio.file.Files.createDirectories(dir);
    KilledJvm.Outcome o = KilledJvm.run(this, dir);
    if (!o.killed()) {
      if (o.exitCode() != 0) {
        throw new AssertionError("the child JVM failed (exit code " + o.exitCode() + "); its last output:\n" + o.tail());
      }
      log.add("the child JVM ran the case to its end without reaching the point, and checked it");
      return;
    }
    Progress at = Progress.load(dir);
    log.addAll(at.log());
    firedIn = at.stepName();
    log.add(at.stepName() + ": the JVM killed at " + point.id());
    runSteps(dir, at);
  }

  /** The arguments that make this case again in another JVM: {@link #fromArgs}. */
  List<String> args() {
    return List.of(given);
  }

  /** The case {@link #args} name. */
  static CrashCase fromArgs(List<String> a) {
    return new CrashCase(Long.parseLong(a.get(0)), a.get(1).equals("-") ? null : CrashPoint.parse(a.get(1)),
        a.get(2).equals("-") ? null : Kind.valueOf(a.get(2)), Integer.parseInt(a.get(3)), Integer.parseInt(a.get(4)));
  }

  /** The child JVM's part of a kill case (see {@link KilledJvm}): the steps, saving its progress before each. */
  void runAsChild(Path dir) {
    child = true;
    runSteps(dir, null);
  }

  /** The steps from the start, or ({@code resume} not null) from the step a killed JVM was in. */
  private void runSteps(Path dir, Progress resume) {
    Pipeline p = new Pipeline(dir, resume != null);
    History h;
    if (resume == null) {
      h = new History(p.db, rnd);
      h.commit(2 + rnd.nextInt(4));
      arm();
    } else {
      h = resume.history();
      h.reattach(p.db);
      rnd = resume.rnd();
      lastVerdict = resume.lastVerdict();
      historyGeneration = resume.historyGeneration();
    }
    for (int round = resume == null ? 0 : resume.round(); round < rounds; round++) {
      boolean resumed = resume != null && round == resume.round();
      int perBatch;
      if (resumed) {
        perBatch = resume.perBatch(); // the round's history was made before the kill
      } else {
        if (round == switchRound && !switchWhileRunning) {
          h.switchInstance(noteDraw);
          log.add("note added, capture instance " + History.NEW_INSTANCE + " enabled");
        }
        if (dropOld && switchRound >= 0 && round == switchRound + 1) {
          h.dropOldInstance();
          log.add("capture instance " + History.CAPTURE_INSTANCE + " dropped");
        }
        if (round > 0) {
          h.commit(2 + rnd.nextInt(5));
        }
        if (round == largeRound) {
          h.commitLarge(largeDraw, largeStatements);
          log.add("a transaction of " + largeStatements + " statements");
        }
        if (round == purgeRound) {
          log.add("purged to " + h.purgeUnread(p.db).hex());
        }
        perBatch = 1 + rnd.nextInt(3);
      }
      int from = resumed ? resume.step() : STREAM;
      if (from <= STREAM) {
        String name = "stream round " + round;
        saveProgress(dir, h, round, STREAM, name, perBatch);
        boolean across = round == switchRound && switchWhileRunning;
        step(name, () -> {
          if (across) {
            streamAcrossSwitch(p, perBatch, h);
          } else {
            stream(p, perBatch);
          }
        });
        h.streamed();
      }
      if (chunked && from <= BACKFILL) {
        // round 0: one wave (the snapshot stays open beside the stream); later rounds: the rest
        int waves = round == 0 ? 1 : 0;
        boolean last = round > 0;
        String name = "backfill round " + round;
        saveProgress(dir, h, round, BACKFILL, name, perBatch);
        step(name, () -> {
          String state = p.backfill(chunkRows, waves).state();
          log.add("backfill: " + state);
          if (last && !state.equals("done")) {
            throw new AssertionError("a backfill without limits ended " + state + ", not done");
          }
        });
      }
      if (round > 0) {
        String name = "apply round " + round;
        saveProgress(dir, h, round, APPLY, name, perBatch);
        step(name, () -> apply(p, h));
      }
    }
    CrashPoints.disarm();
    new Checks(p, h, chunked, historyGeneration).all();
    log.add("checked");
  }

  private void saveProgress(Path dir, History h, int round, int step, String name, int perBatch) {
    if (child) {
      new Progress(h, rnd, round, step, name, perBatch, lastVerdict, historyGeneration, List.copyOf(log)).save(dir);
    }
  }

  private void arm() {
    if (kind == Kind.KILL) {
      if (child) {
        CrashPoints.arm(point, nth, (p, n) -> KilledJvm.reportAndWait(p));
      }
      return;
    }
    if (kind == Kind.EXCEPTION) {
      CrashPoints.arm(point, nth);
      return;
    }
    CrashPoints.arm(point, nth, (p, n) -> {
      CompletableFuture<StreamingQuery> q = current;
      Thread stopper = new Thread(() -> {
        try {
          q.get(1, TimeUnit.MINUTES).stop();
        } catch (Exception e) {
          log.add("the stop failed: " + e);
        }
      }, "crash-stopper");
      stopper.setDaemon(true);
      stopper.start();
      // The stop interrupts this thread (the query's): the InterruptedException ends the query as stopped.
      if (!new CountDownLatch(1).await(2, TimeUnit.MINUTES)) {
        throw new IllegalStateException("the stop did not interrupt the query's thread at " + p.id());
      }
    });
  }

  /**
   * One stream run (AvailableNow). A query that reaches the newer capture instance with columns its schema lacks stops
   * and asks to be restarted (docs/SOURCE.md); it is, as an operator would, at most twice.
   */
  private void stream(Pipeline p, int perBatch) {
    for (int attempt = 0; ; attempt++) {
      current = new CompletableFuture<>();
      StreamingQuery q = p.startStream(perBatch, chunked);
      current.complete(q);
      try {
        q.awaitTermination();
        break;
      } catch (org.apache.spark.sql.streaming.StreamingQueryException e) {
        if (attempt < 2 && schemaChanged(e)) {
          log.add("the stream asked for a restart (" + History.NEW_INSTANCE + "'s columns)");
          continue;
        }
        throw new RuntimeException(e.getMessage(), e);
      }
    }
    p.awaitTracking();
  }

  /**
   * The switch round of a case that switches while the query runs: a running query reads the round's transactions,
   * then (unless a run of this step before the crash did) the column is added, the newer instance enabled and 1-4
   * transactions committed while it runs; it must stop at the newer instance's start asking for a restart (its
   * schema lacks the column), and the restarted query reads the rest. A query stopped by the crash ends the step
   * (it is run again).
   */
  private void streamAcrossSwitch(Pipeline p, int perBatch, History h) {
    StreamingQuery q = startRunning(p, perBatch);
    try {
      if (!h.switched()) {
        if (!processAll(q)) {
          return;
        }
        h.switchInstance(noteDraw);
        h.commit(1 + rnd.nextInt(4));
        log.add("note added, capture instance " + History.NEW_INSTANCE + " enabled, committed while the query ran");
      }
      for (int attempt = 0; ; attempt++) {
        try {
          if (!processAll(q)) {
            return;
          }
          break;
        } catch (org.apache.spark.sql.streaming.StreamingQueryException e) {
          if (attempt < 2 && schemaChanged(e)) {
            log.add("the running query stopped at " + History.NEW_INSTANCE + "'s start, asking for a restart");
            q = startRunning(p, perBatch);
            continue;
          }
          throw new RuntimeException(e.getMessage(), e);
        }
      }
    } catch (org.apache.spark.sql.streaming.StreamingQueryException e) {
      throw new RuntimeException(e.getMessage(), e);
    } finally {
      stopQuietly(q);
    }
    p.awaitTracking();
  }

  private StreamingQuery startRunning(Pipeline p, int perBatch) {
    current = new CompletableFuture<>();
    StreamingQuery q = p.startRunning(perBatch, chunked);
    current.complete(q);
    return q;
  }

  /**
   * {@code processAllAvailable()}: true when the query read everything committed; false when the crash stopped it
   * (a stop case), an error when it stopped otherwise.
   */
  private static boolean processAll(StreamingQuery q) throws org.apache.spark.sql.streaming.StreamingQueryException {
    q.processAllAvailable();
    if (q.isActive()) {
      return true;
    }
    if (q.exception().isDefined()) {
      throw q.exception().get();
    }
    if (CrashPoints.fired() == null) {
      throw new AssertionError("the query " + q.name() + " stopped by itself before reading everything");
    }
    return false;
  }

  private void stopQuietly(StreamingQuery q) {
    try {
      q.stop();
    } catch (java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException("the query " + q.name() + " did not stop: " + e.getMessage(), e);
    }
  }

  private static boolean schemaChanged(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof io.mssqlcdc.errors.CdcSchemaChangedException) {
        return true;
      }
    }
    return false;
  }

  private void apply(Pipeline p, History h) {
    ApplyResult r = p.apply().run();
    if (!r.bronzeFound() || r.appliedLsn().isEmpty()) {
      throw new AssertionError("ApplyChanges found no bronze or applied nothing: " + r);
    }
    // finalized_until never moves backwards and never passes what was applied: every commit before it is at or
    // below the applied position.
    if (r.finalizedUntil().isPresent()) {
      LocalDateTime v = r.finalizedUntil().get();
      if (lastVerdict != null && v.isBefore(lastVerdict)) {
        throw new AssertionError("finalized_until moved backwards: " + lastVerdict + " -> " + v);
      }
      lastVerdict = v;
      Lsn applied = Lsn.parse(r.appliedLsn().get());
      for (History.Commit c : h.commits()) {
        if (c.at().isBefore(v) && c.lsn().isAfter(applied) && !c.changes().isEmpty()) {
          throw new AssertionError("finalized_until " + v + " passed commit " + c.lsn() + " at " + c.at()
              + ", which is after the applied position " + applied);
        }
      }
    }
    log.add("applied to " + r.appliedLsn().get() + ", verdict " + r.finalizedUntil().orElse(null));
    ApplyResult v = p.history().run();
    if (!chunked) {
      if (historyGeneration < 0) {
        historyGeneration = h.purgedAfter().size();
      }
      if (!v.appliedLsn().equals(r.appliedLsn())) {
        throw new AssertionError("the history's position " + v.appliedLsn() + " is not silver's " + r.appliedLsn());
      }
      return;
    }
    // A chunked snapshot: the history waits while it is open and until the stream has read past its waves
    // (docs/HISTORY.md), so its position may trail silver's, never lead it; it starts at the first snapshot it applies.
    if (v.appliedLsn().isPresent() && v.appliedLsn().get().compareTo(r.appliedLsn().get()) > 0) {
      throw new AssertionError("the history's position " + v.appliedLsn() + " is past silver's " + r.appliedLsn());
    }
    if (historyGeneration < 0) {
      List<Row> ctl = Pipeline.SPARK.read().format("delta").load(p.control)
          .where(functions.col("table_name").equalTo(p.history)).select("snapshot_lsn").collectAsList();
      if (!ctl.isEmpty() && !ctl.get(0).isNullAt(0)) {
        String s = ctl.get(0).getString(0);
        historyGeneration = (int) h.purgedAfter().stream().filter(l -> l.hex().compareTo(s) < 0).count();
      }
    }
    log.add("history at " + v.appliedLsn().orElse(null) + (historyGeneration < 0 ? " (waits for the snapshot)" : ""));
  }

  /** Runs a step; if the crash fired in it, checks the failure was the crash and runs the step again. */
  private void step(String name, Runnable work) {
    boolean armedBefore = CrashPoints.fired() == null && firedIn == null;
    Throwable failure = null;
    try {
      work.run();
    } catch (RuntimeException | Error e) {
      failure = e;
    }
    boolean firedHere = armedBefore && CrashPoints.fired() != null;
    if (failure != null && !(firedHere && causedByCrash(failure))) {
      throw new AssertionError(name + " failed, not by the crash: " + failure, failure);
    }
    if (!firedHere) {
      log.add(name);
      return;
    }
    firedIn = name;
    log.add(name + ": crashed at " + point.id() + (failure == null ? " (the step ended without error)" : ""));
    work.run();
    log.add(name + " again");
  }

  private boolean causedByCrash(Throwable t) {
    if (kind == Kind.STOP) {
      return true;
    }
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof CrashPointException) {
        return true;
      }
      for (Throwable s : c.getSuppressed()) {
        if (causedByCrash(s)) {
          return true;
        }
      }
    }
    return false;
  }
}
