package io.mssqlcdc.sink.pipeline;

/**
 * What a {@code backfill()} call achieved (reference-behaviour §2 {@code BackfillStatus}).
 *
 * @param snapshot the chunked snapshot's LSN S, or null when none is open
 * @param chunksDone chunks in bronze
 * @param chunksTotal chunks of the plan (or, when done, the chunks done); null until a call has planned the
 *     snapshot (and with {@code no_snapshot}), as the reference's {@code chunks_total} is None then
 * @param done whether the snapshot is complete (its completion row written)
 * @param paused whether the call waits on something outside it: throttling ({@code waiting_headroom},
 *     {@code waiting_metrics}) or no snapshot; false when it is {@code done} or {@code running} (a limit
 *     stopped it: call again)
 * @param state {@code done}, {@code running} (stopped by {@code maxWaves}/{@code maxSeconds}),
 *     {@code waiting_headroom}, {@code waiting_metrics} or {@code no_snapshot}
 * @param reason why it stopped, in words
 */
public record BackfillStatus(
    String snapshot, long chunksDone, Long chunksTotal, boolean done, boolean paused, String state, String reason) {

  /** The same status with {@code chunksDone} as the call left it. */
  BackfillStatus withDone(long chunks) {
    return new BackfillStatus(snapshot, chunks, chunksTotal, done, paused, state, reason);
  }
}
