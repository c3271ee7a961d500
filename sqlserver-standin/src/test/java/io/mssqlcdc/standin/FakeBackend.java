package io.mssqlcdc.standin;

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
