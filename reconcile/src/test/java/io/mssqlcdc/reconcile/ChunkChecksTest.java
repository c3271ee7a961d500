package io.mssqlcdc.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import io.mssqlcdc.reconcile.ChunkChecks.BronzeChunk;
import io.mssqlcdc.reconcile.ChunkChecks.FactsChunk;
import io.mssqlcdc.reconcile.ChunkChecks.Problem;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The chunk checks of a chunked snapshot, without Spark. */
class ChunkChecksTest {
  private static final String S = "0x0000002A000001000001";
  private static final String L = "0x0000002A000001000011";

  @Test
  void aSnapshotThatTilesTheTableHasNoProblem() {
    List<FactsChunk> facts = List.of(new FactsChunk(0, null, "10", false, 3L, L),
        new FactsChunk(1, "10", "20", false, 2L, L), new FactsChunk(2, "20", null, true, 0L, S));
    List<BronzeChunk> bronze = List.of(new BronzeChunk(0, 3, L), new BronzeChunk(1, 2, L));
    assertThat(ChunkChecks.check(S, facts, bronze, true)).isEmpty();
    assertThat(ChunkChecks.check(S, facts.subList(0, 2), bronze, false)).as("still open").isEmpty();
  }

  @Test
  void gapsOverlapsDuplicatesAndAnUnmarkedLastChunkAreTilingProblems() {
    List<FactsChunk> facts = List.of(new FactsChunk(0, "5", "10", false, 1L, L),
        new FactsChunk(2, "20", "30", false, 1L, L), new FactsChunk(3, "25", "40", false, 1L, L),
        new FactsChunk(3, "25", "40", false, 1L, L));
    List<BronzeChunk> bronze = List.of(new BronzeChunk(0, 1, L), new BronzeChunk(2, 1, L), new BronzeChunk(3, 1, L));
    List<Problem> p = ChunkChecks.check(S, facts, bronze, true);
    assertThat(p).extracting(Problem::failureType, Problem::chunk, x -> x.detail().get("problem")).containsExactly(
        org.assertj.core.groups.Tuple.tuple("CHUNK_TILING", 0, "the first chunk is not open below"),
        org.assertj.core.groups.Tuple.tuple("CHUNK_TILING", 1, "no 'snapshot_chunk' facts row"),
        org.assertj.core.groups.Tuple.tuple("CHUNK_TILING", 3, "2 'snapshot_chunk' facts rows"),
        org.assertj.core.groups.Tuple.tuple("CHUNK_TILING", 3, "does not start where chunk 2 ended (30)"),
        org.assertj.core.groups.Tuple.tuple("CHUNK_TILING", 3,
            "the snapshot is complete but its last chunk is not marked last"));
  }

  @Test
  void aChunkAfterTheLastOneIsATilingProblem() {
    List<FactsChunk> facts = List.of(new FactsChunk(0, null, null, true, 1L, L), new FactsChunk(1, null, null, true, 0L,
        L));
    assertThat(ChunkChecks.check(S, facts, List.of(new BronzeChunk(0, 1, L)), false))
        .extracting(x -> x.detail().get("problem")).containsExactly("follows chunk 0, which is marked last");
  }

  @Test
  void rowsThatDifferFromBronzeAndStampsBelowTheSnapshotAreReported() {
    String below = "0x00000029000001000001";
    List<FactsChunk> facts = List.of(new FactsChunk(0, null, "10", false, 3L, L),
        new FactsChunk(1, "10", null, true, 2L, below));
    List<BronzeChunk> bronze = List.of(new BronzeChunk(0, 2, L), new BronzeChunk(1, 2, L), new BronzeChunk(4, 7, L));
    List<Problem> p = ChunkChecks.check(S, facts, bronze, true);
    assertThat(p).extracting(Problem::failureType, Problem::chunk, Problem::detail).containsExactly(
        org.assertj.core.groups.Tuple.tuple("CHUNK_ROWS", 0, Map.of("facts_rows", 3L, "bronze_rows", 2L)),
        org.assertj.core.groups.Tuple.tuple("CHUNK_STAMP", 1, Map.of("lsn", below)),
        org.assertj.core.groups.Tuple.tuple("CHUNK_ROWS", 4, java.util.Collections.unmodifiableMap(
            new java.util.LinkedHashMap<String, Object>() {{
              put("facts_rows", null);
              put("bronze_rows", 7L);
            }})));
    assertThat(ChunkChecks.check(S, facts, bronze, false)).extracting(Problem::chunk).as("bronze-only chunks once"
        + " complete").containsExactly(0, 1);
  }
}
