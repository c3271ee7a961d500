package io.mssqlcdc.fake;

import io.mssqlcdc.errors.CdcErrors;
import io.mssqlcdc.fake.Catalog.InstanceState;
import io.mssqlcdc.fake.Catalog.TableState;
import java.util.List;
import java.util.Locale;

/**
 * {@link io.mssqlcdc.client.CdcClient#captureInstances} name resolution: exact name, then a
 * unique case-insensitive match (two fail), then a gone name that is its table's default
 * {@code <schema>_<table>} (the table's current instances). Oldest first.
 */
final class InstanceResolver {
  private InstanceResolver() {}

  static List<InstanceState> resolve(Catalog c, String name) {
    InstanceState found = find(c, name);
    if (found != null) {
      return c.instancesOf(found.tableUid);
    }
    List<TableState> byDefaultName = c.tables.stream()
        .filter(t -> (t.schema + "_" + t.name).equalsIgnoreCase(name))
        .filter(t -> !c.instancesOf(t.uid).isEmpty())
        .toList();
    if (byDefaultName.size() == 1) {
      return c.instancesOf(byDefaultName.get(0).uid);
    }
    throw CdcErrors.captureInstanceNotFound(name, candidates(c, name));
  }

  /** The instance named {@code name} exactly or, failing that, uniquely ignoring case; null when none. */
  static InstanceState find(Catalog c, String name) {
    var exact = c.instanceExact(name);
    if (exact.isPresent()) {
      return exact.get();
    }
    List<InstanceState> ci = c.instances.stream().filter(i -> i.name.equalsIgnoreCase(name)).toList();
    if (ci.size() > 1) {
      throw CdcErrors.captureInstanceAmbiguous(name, ci.stream().map(i -> i.name).sorted().toList());
    }
    return ci.isEmpty() ? null : ci.get(0);
  }

  /** The instance, or {@code captureInstanceNotFound} naming candidates. */
  static InstanceState require(Catalog c, String name) {
    InstanceState i = find(c, name);
    if (i == null) {
      throw CdcErrors.captureInstanceNotFound(name, candidates(c, name));
    }
    return i;
  }

  /** The instance named exactly {@code name} (as a stored procedure taking the name matches it), or {@code captureInstanceNotFound}. */
  static InstanceState requireExact(Catalog c, String name) {
    return c.instanceExact(name).orElseThrow(() -> CdcErrors.captureInstanceNotFound(name, candidates(c, name)));
  }

  /** Instances of tables whose default instance name prefixes {@code name}. */
  private static List<String> candidates(Catalog c, String name) {
    String lower = name.toLowerCase(Locale.ROOT);
    return c.tables.stream()
        .filter(t -> lower.startsWith((t.schema + "_" + t.name).toLowerCase(Locale.ROOT)))
        .flatMap(t -> c.instancesOf(t.uid).stream())
        .map(i -> i.name)
        .toList();
  }
}
