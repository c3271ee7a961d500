package io.mssqlcdc.standin;

import io.mssqlcdc.client.CaptureInstance;
import io.mssqlcdc.client.TableRef;
import io.mssqlcdc.fake.FakeCatalogView;
import io.mssqlcdc.fake.FakeCatalogView.MappingRow;
import io.mssqlcdc.fake.FakeCdcClient;
import io.mssqlcdc.lsn.Lsn;
import java.nio.file.Path;
import java.time.ZoneId;
import java.util.List;
import java.util.Optional;

/**
 * One session's view of the fake database the stand-in serves: its own {@link FakeCdcClient}
 * (a SQL Server session reads committed data; the fake client reloads when writers publish) and
 * the catalog views beyond the client seam, plus lookups in {@code cdc.lsn_time_mapping}.
 */
final class FakeBackend implements AutoCloseable {
  private final FakeCdcClient client;
  private final FakeCatalogView view;
  private final StandInOptions options;

  FakeBackend(Path dir, StandInOptions options) {
    this.client = FakeCdcClient.open(dir);
    this.view = FakeCatalogView.of(client);
    this.options = options;
  }

  FakeCdcClient client() {
    return client;
  }

  FakeCatalogView view() {
    return view;
  }

  StandInOptions options() {
    return options;
  }

  /**
   * Whether names resolve ignoring case: SQL Server resolves identifiers (tables, columns, and the
   * capture instance names its procedures and functions look up in {@code cdc.change_tables}) by
   * the database collation, so only a case-insensitive ({@code _CI}) one lets {@code [orderid]}
   * find {@code OrderId}; under a binary or {@code _CS} collation the spelling must be exact.
   */
  boolean identifiersIgnoreCase() {
    return options.collation().toUpperCase(java.util.Locale.ROOT).contains("_CI");
  }

  /** Whether the name {@code asked} finds the object declared as {@code declared}, by {@link #identifiersIgnoreCase}. */
  boolean sameName(String declared, String asked) {
    return identifiersIgnoreCase() ? declared.equalsIgnoreCase(asked) : declared.equals(asked);
  }

  /** The capture instance {@code asked} names, by the collation's rule. */
  Optional<CaptureInstance> instance(String asked) {
    return view.captureInstances().stream().filter(i -> sameName(i.name(), asked)).findFirst();
  }

  /** The table {@code asked} names (schema and name), by the collation's rule, as declared. */
  Optional<TableRef> table(TableRef asked) {
    return view.table(asked).filter(t -> sameName(t.schema(), asked.schema()) && sameName(t.table(), asked.table()));
  }

  ZoneId zone() {
    return ZoneId.of(view.serverZone());
  }

  /** What CURRENT_TIMEZONE_ID() returns for the fake's server zone. */
  String windowsZoneName() {
    return WindowsZones.name(view.serverZone()).orElseThrow(() -> new IllegalStateException("The fake's server zone "
        + view.serverZone() + " has no Windows name in the stand-in's WindowsZones: add it there"));
  }

  /** Index of the first mapping entry at or after {@code lsn} (size when none). */
  int firstAtOrAfter(Lsn lsn) {
    List<MappingRow> m = view.lsnTimeMapping();
    int lo = 0;
    int hi = m.size();
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (m.get(mid).lsn().compareTo(lsn) < 0) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  int firstAfter(Lsn lsn) {
    return lsn.equals(Lsn.MAX) ? view.lsnTimeMapping().size() : firstAtOrAfter(lsn.increment());
  }

  Optional<MappingRow> entry(Lsn lsn) {
    List<MappingRow> m = view.lsnTimeMapping();
    int i = firstAtOrAfter(lsn);
    return i < m.size() && m.get(i).lsn().equals(lsn) ? Optional.of(m.get(i)) : Optional.empty();
  }

  Optional<MappingRow> entryAtOrBefore(Lsn lsn) {
    List<MappingRow> m = view.lsnTimeMapping();
    int i = firstAtOrAfter(lsn);
    if (i < m.size() && m.get(i).lsn().equals(lsn)) {
      return Optional.of(m.get(i));
    }
    return i == 0 ? Optional.empty() : Optional.of(m.get(i - 1));
  }

  List<MappingRow> between(Lsn from, Lsn to) {
    if (from.isAfter(to)) {
      return List.of();
    }
    List<MappingRow> m = view.lsnTimeMapping();
    int a = firstAtOrAfter(from);
    int b = to.equals(Lsn.MAX) ? m.size() : firstAtOrAfter(to.increment());
    return m.subList(a, Math.max(a, b));
  }

  Optional<MappingRow> lastEntry() {
    List<MappingRow> m = view.lsnTimeMapping();
    return m.isEmpty() ? Optional.empty() : Optional.of(m.get(m.size() - 1));
  }

  @Override
  public void close() {
    client.close();
  }
}
