package io.mssqlcdc.client;

import io.mssqlcdc.lsn.Lsn;
import java.io.Serializable;

/**
 * One tile of {@link CdcClient#splitPoints}: the change rows of a commit-aligned LSN range.
 *
 * @param bound the largest {@code __$start_lsn} in the tile (the range ends here, inclusive)
 * @param next {@code fn_cdc_increment_lsn(bound)}, where the following range starts
 * @param rows change rows in the tile
 */
public record SplitPoint(Lsn bound, Lsn next, long rows) implements Serializable {}
