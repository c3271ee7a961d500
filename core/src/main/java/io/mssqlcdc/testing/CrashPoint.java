package io.mssqlcdc.testing;

/**
 * The named places where a test may make the library fail as a crashing process would (issue 29;
 * docs/RELIABILITY.md lists what a crash at each proves). {@link CrashPoints#hit} marks them in the code.
 */
public enum CrashPoint {
  /** DeltaSink: the batch's rewind check done, before its bronze append. */
  SINK_BEFORE_BRONZE("sink.beforeBronzeCommit"),
  /** DeltaSink: bronze committed (txnAppId/txnVersion), the facts row not yet written or handed over. */
  SINK_AFTER_BRONZE("sink.afterBronzeCommit"),
  /** FactsCommitter's thread: before a steady batch's facts group commit (decisions 0012, 0013). */
  SINK_FACTS_COMMIT("sink.factsCommit"),
  /** DeltaSink: bronze and facts done (a steady batch's facts maybe in flight), before Spark's commit of the batch. */
  SINK_AFTER_FACTS("sink.afterFacts"),
  /** A full snapshot (bootstrap or re-snapshot): stamped, before its rows are appended to bronze. */
  SNAPSHOT_AFTER_STAMP("snapshot.afterStamp"),
  /** A full snapshot: its rows appended to bronze, before the facts event that records it. */
  SNAPSHOT_AFTER_APPEND("snapshot.afterAppend"),
  /** A chunked snapshot: its open row (the stamp S) written, before the stream starts and any chunk is read. */
  CHUNKED_AFTER_OPEN("chunked.afterOpen"),
  /** Recovery (re-snapshot): the state file says "recovering", nothing of the new generation written. */
  RESNAPSHOT_AFTER_RECOVERING("resnapshot.afterRecovering"),
  /** Recovery: the new generation's snapshot and its facts event written, before the state file switches to it. */
  RESNAPSHOT_BEFORE_SWITCH("resnapshot.beforeGenerationSwitch"),
  /** Backfill: a wave read, before its bronze append. */
  BACKFILL_AFTER_READ("backfill.afterWaveRead"),
  /** Backfill: a wave appended to bronze, before its snapshot_chunk facts rows. */
  BACKFILL_AFTER_APPEND("backfill.afterWaveAppend"),
  /** ApplyChanges: the control row read, before bronze is read. */
  SILVER_AFTER_CONTROL_READ("silver.afterControlRead"),
  /** ApplyChanges: the MERGE committed, before the position and verdict are recorded. */
  SILVER_AFTER_MERGE("silver.afterMerge"),
  /** ApplyChanges: the position and verdict recorded, before the call returns. */
  SILVER_AFTER_POSITION("silver.afterPosition"),
  /** ApplyHistory: the history's MERGE committed, before its position and verdict are recorded. */
  HISTORY_AFTER_MERGE("history.afterMerge"),
  /** ApplyHistory: the position and verdict recorded, before the call returns. */
  HISTORY_AFTER_POSITION("history.afterPosition");

  private final String id;

  CrashPoint(String id) {
    this.id = id;
  }

  /** The point's name in reports and in {@code -Dcrash.point=}, e.g. {@code sink.afterBronzeCommit}. */
  public String id() {
    return id;
  }

  /** The point named {@code id} (its {@link #id()} or its constant's name, any case). */
  public static CrashPoint parse(String id) {
    for (CrashPoint p : values()) {
      if (p.id.equalsIgnoreCase(id) || p.name().equalsIgnoreCase(id)) {
        return p;
      }
    }
    throw new IllegalArgumentException("no crash point '" + id + "'; the points: "
        + java.util.Arrays.stream(values()).map(CrashPoint::id).toList());
  }
}
