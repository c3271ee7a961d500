package io.mssqlcdc.client;

import java.io.Serializable;
import java.util.List;

/**
 * The table a capture instance tracks, with the key snapshots read it by.
 *
 * @param table schema and name
 * @param keyColumns the unique index CDC uses ({@code index_column_list}), empty when none
 */
public record SourceTable(TableRef table, List<String> keyColumns) implements Serializable {
  public SourceTable {
    keyColumns = List.copyOf(keyColumns);
  }
}
