package io.mssqlcdc.client;

import io.mssqlcdc.lsn.Lsn;
import java.io.Serializable;
import java.time.LocalDateTime;
import java.util.List;
import java.util.Locale;

/**
 * A capture instance of a source table, as {@code sys.sp_cdc_help_change_data_capture} lists it.
 *
 * @param name the capture instance name ({@code dbo_orders}), spelled as SQL Server stores it
 * @param sourceSchema schema of the tracked table
 * @param sourceTable name of the tracked table
 * @param startLsn the instance's {@code start_lsn}: the commit LSN of its enable. From it on every
 *     commit of the table is in this instance. {@code null} when SQL Server reports none
 * @param indexColumns the unique index CDC uses for the table ({@code index_column_list}), in
 *     index order; empty when the table has none
 * @param createDate {@code create_date} of the instance (server clock), {@code null} if unknown
 */
public record CaptureInstance(
    String name, String sourceSchema, String sourceTable, Lsn startLsn, List<String> indexColumns,
    LocalDateTime createDate) implements Serializable {

  public CaptureInstance {
    indexColumns = indexColumns == null ? List.of() : List.copyOf(indexColumns);
  }

  /** {@code schema.table}, lower case: the identity of the stream's source (offsets carry it). */
  public String tableIdentity() {
    return (sourceSchema + "." + sourceTable).toLowerCase(Locale.ROOT);
  }

  /** Whether {@code other} names this instance, ignoring case. */
  public boolean isNamed(String other) {
    return name.equalsIgnoreCase(other);
  }

  /**
   * Of the instances {@link CdcClient#captureInstances} resolved for {@code configured}: the one it
   * names, else the table's newest (a disabled default name still resolves to its table's instances).
   */
  public static CaptureInstance pick(java.util.List<CaptureInstance> instances, String configured) {
    return instances.stream().filter(i -> i.isNamed(configured)).findFirst()
        .orElse(instances.get(instances.size() - 1));
  }
}
