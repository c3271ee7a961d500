package io.mssqlcdc.fake;

import io.mssqlcdc.client.CaptureInstance;
import io.mssqlcdc.client.TableRef;
import io.mssqlcdc.fake.Catalog.ColumnState;
import io.mssqlcdc.fake.Catalog.InstanceState;
import io.mssqlcdc.fake.Catalog.MappingEntry;
import io.mssqlcdc.fake.Catalog.TableState;
import io.mssqlcdc.lsn.Lsn;
import io.mssqlcdc.types.SqlServerType;
import java.time.LocalDateTime;
import java.util.AbstractList;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What SQL Server's catalog views would show of a fake database, beyond the {@link
 * io.mssqlcdc.client.CdcClient} seam: every capture instance ({@code sp_cdc_help_change_data_capture}
 * without arguments), declared column types ({@code sys.columns}) and the local commit times of
 * {@code cdc.lsn_time_mapping}. Read-only; for the SQL Server wire stand-in of the tests, which
 * answers mssql-jdbc's statements from a fake database. Each call reads the client's current
 * catalog (so it sees commits made since).
 */
public final class FakeCatalogView {
  private final FakeCdcClient client;

  private FakeCatalogView(FakeCdcClient client) {
    this.client = client;
  }

  /** The view through {@code client} (which keeps reloading the catalog when writers publish). */
  public static FakeCatalogView of(FakeCdcClient client) {
    return new FakeCatalogView(client);
  }

  /** One {@code cdc.lsn_time_mapping} row: the entry's LSN and its {@code tran_end_time} on the server clock. */
  public record MappingRow(Lsn lsn, LocalDateTime tranEndTime) {}

  /** A column of a table as {@code sys.columns} lists it. */
  public record DeclaredColumn(String name, int columnId, SqlServerType type, boolean computed) {}

  /** The server clock's zone (a java.time id) that {@code tran_end_time} and {@code create_date} are written in. */
  public String serverZone() {
    return client.catalog().zone;
  }

  /** {@code cdc.lsn_time_mapping} in LSN order (a view of the loaded catalog: do not hold it across commits). */
  public List<MappingRow> lsnTimeMapping() {
    List<MappingEntry> entries = client.catalog().mapping;
    return new AbstractList<>() {
      @Override
      public MappingRow get(int index) {
        MappingEntry e = entries.get(index);
        return new MappingRow(e.lsn(), e.tranEndTime());
      }

      @Override
      public int size() {
        return entries.size();
      }
    };
  }

  /** Every capture instance, table by table, oldest first within a table. */
  public List<CaptureInstance> captureInstances() {
    Catalog c = client.catalog();
    List<CaptureInstance> out = new ArrayList<>();
    for (TableState t : c.tables) {
      for (InstanceState i : c.instancesOf(t.uid)) {
        out.add(new CaptureInstance(i.name, t.schema, t.name, i.startLsn, t.key, i.createDate));
      }
    }
    return out;
  }

  /** The names of the columns {@code captureInstance} captures, by ordinal; empty when there is no such instance. */
  public List<String> capturedColumnNames(String captureInstance) {
    Optional<InstanceState> i = client.catalog().instanceExact(captureInstance);
    return i.map(s -> s.columns.stream().map(Catalog.Captured::name).toList()).orElse(List.of());
  }

  /** The live columns of {@code table} (schema and name matched ignoring case), by column id; empty when it does not exist. */
  public Optional<List<DeclaredColumn>> columns(TableRef table) {
    return client.catalog().table(table.schema() + "." + table.table()).map(t -> {
      List<DeclaredColumn> out = new ArrayList<>();
      for (ColumnState col : t.columns) {
        if (!col.dropped) {
          out.add(new DeclaredColumn(col.name, col.columnId, col.type, col.computed));
        }
      }
      return out;
    });
  }

  /** The table's schema and name as declared (matched ignoring case), or empty. */
  public Optional<TableRef> table(TableRef table) {
    return client.catalog().table(table.schema() + "." + table.table()).map(t -> new TableRef(t.schema, t.name));
  }
}
