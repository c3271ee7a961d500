package io.mssqlcdc.sink.chunked;

import com.fasterxml.jackson.databind.JsonNode;
import io.mssqlcdc.lsn.Lsn;
import java.time.Instant;
import java.time.LocalDateTime;
import java.util.List;

/**
 * A chunked snapshot's {@code snapshot_open} facts row (reference-behaviour §12.8, §12.9): the
 * snapshot's LSN S (recorded before any of its rows is read), which stream generation it belongs
 * to, whether it bootstraps or re-snapshots, the loss gap of a re-snapshot, the key it is cut by,
 * and the key's extent when it opened.
 *
 * @param appId the sink id of its generation
 * @param s the snapshot's LSN
 * @param commitTs S's commit time (null when unknown)
 * @param kind {@code bootstrap} or {@code resnapshot}; for an old open without one, by generation
 * @param generation the stream generation it opened
 * @param keys the key columns its chunks tile
 * @param extent {@code {"kind": "int", "lo", "hi", "rows"}} or {@code {"kind": "keyset", "max"}}
 * @param lostFrom a re-snapshot's {@code lost_from_ts}
 * @param lostTo a re-snapshot's {@code lost_to_ts}
 * @param writtenAt when the open row was written (the completion row's {@code started_at})
 */
public record ChunkedOpen(
    String appId, Lsn s, Instant commitTs, String kind, int generation, List<String> keys, JsonNode extent,
    Instant lostFrom, Instant lostTo, LocalDateTime writtenAt) {

  public ChunkedOpen {
    keys = keys == null ? List.of() : List.copyOf(keys);
  }

  /** Whether the extent is an integer range. */
  public boolean isInt() {
    return "int".equals(extent.path("kind").asText());
  }
}
