package io.mssqlcdc.silver;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * A chunk of an open chunked snapshot, as its {@code snapshot_chunk} facts row announces it
 * (reference-behaviour §14.3): written after the chunk's bronze rows, so a bronze version read
 * after the facts holds it.
 *
 * @param index the chunk's number ({@code _chunk} of its bronze rows)
 * @param wave the wave that read it
 * @param lo the first key of its range, as the facts' JSON holds it; null: open
 * @param hi the exclusive end of its range; null: open
 * @param stamp the LSN L the wave was read under (the row's {@code min_lsn}): the chunk saw every
 *     commit up to it
 */
record Chunk(int index, int wave, JsonNode lo, JsonNode hi, String stamp) {
  Chunk {
    lo = lo == null || lo.isNull() || lo.isMissingNode() ? null : lo;
    hi = hi == null || hi.isNull() || hi.isMissingNode() ? null : hi;
  }
}
