package io.mssqlcdc.sink.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import io.mssqlcdc.sink.chunked.ChunkedFacts.DoneChunk;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** How a call's first wave is sized from the waves an earlier call recorded. */
class BackfillPaceTest {

  private static DoneChunk chunk(int chunk, int wave, Long durationMs) {
    return new DoneChunk(chunk, wave, false, 10L, null, null, 1.0, durationMs);
  }

  @Test
  void noWaveYetMeansOneRound() {
    assertThat(Backfill.lastWavePace(new TreeMap<>(), 4)).isNull();
  }

  @Test
  void theLastWavesDurationIsSharedByItsRoundsOfKChunks() {
    TreeMap<Integer, DoneChunk> done = new TreeMap<>();
    done.put(0, chunk(0, 0, 90_000L));
    for (int c = 1; c <= 5; c++) {
      done.put(c, chunk(c, 1, 12_000L)); // wave 1: five chunks, 12 s, k=2 → three rounds
    }
    assertThat(Backfill.lastWavePace(done, 2)).isEqualTo(4.0);
    assertThat(Backfill.lastWavePace(done, 8)).isEqualTo(12.0);
  }

  @Test
  void aLastWaveWithoutADurationMeansOneRound() {
    TreeMap<Integer, DoneChunk> done = new TreeMap<>();
    done.put(0, chunk(0, 0, null));
    assertThat(Backfill.lastWavePace(done, 2)).isNull();
  }
}
