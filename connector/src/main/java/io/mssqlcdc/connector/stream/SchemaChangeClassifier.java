package io.mssqlcdc.connector.stream;

import io.mssqlcdc.client.CapturedColumn;
import io.mssqlcdc.client.DdlEvent;
import io.mssqlcdc.errors.CdcErrors;
import io.mssqlcdc.options.CdcReaderOptions.SchemaChangePolicy;
import io.mssqlcdc.types.TypeMapping;
import io.mssqlcdc.types.TypeWidening;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import org.apache.spark.sql.types.DataType;

/**
 * Decides what DDL inside a micro-batch means, before anything of the batch is read
 * (reference-behaviour §6 step 7, §11 D1). With {@code schemaChangePolicy=fail} any DDL fails
 * the batch. With {@code classify}, a wanted captured column whose current type the query's
 * type cannot hold fails it (a restart re-infers the schema, and the replayed batch then
 * passes); any other DDL goes on and becomes a {@code schema_change} event.
 */
final class SchemaChangeClassifier {
  /** Longest DDL command kept in an event. */
  static final int MAX_COMMAND = 500;

  private SchemaChangeClassifier() {}

  /**
   * @param ddl the DDL of the instances the batch reads, any order, possibly duplicated (both
   *     instances of a table record the same DDL)
   * @param expected the query's Spark type per wanted column, by lower-case name
   * @param currentColumns the instance's captured columns as they are now
   * @param declared whether the schema comes from the {@code columns} option
   * @return the {@code schema_change} events, by LSN
   */
  static List<BatchEvent> classify(
      Collection<DdlEvent> ddl, SchemaChangePolicy policy, Map<String, DataType> expected,
      Function<String, List<CapturedColumn>> currentColumns, boolean declared) {
    Map<io.mssqlcdc.lsn.Lsn, DdlEvent> byLsn = new TreeMap<>();
    for (DdlEvent e : ddl) {
      byLsn.putIfAbsent(e.lsn(), e);
    }
    if (byLsn.isEmpty()) {
      return List.of();
    }
    if (policy == SchemaChangePolicy.FAIL) {
      DdlEvent first = byLsn.values().iterator().next();
      throw CdcErrors.ddlWithFailPolicy(first.captureInstance(), first.lsn().toString(), first.command());
    }
    List<String> instances = new ArrayList<>();
    for (DdlEvent e : byLsn.values()) {
      if (!instances.contains(e.captureInstance())) {
        instances.add(e.captureInstance());
      }
    }
    for (String ci : instances) {
      List<String> bad = new ArrayList<>();
      for (CapturedColumn c : currentColumns.apply(ci)) {
        DataType want = expected.get(c.name().toLowerCase(Locale.ROOT));
        if (want == null || c.computed()) {
          continue;
        }
        String now = TypeMapping.sparkType(c.type()).orElse(c.type().declaration());
        if (!TypeWidening.fits(now, want.sql())) {
          bad.add(c.name() + " " + now + " (read as " + want.sql().toLowerCase(Locale.ROOT) + ")");
        }
      }
      if (!bad.isEmpty()) {
        List<String> cmds = new ArrayList<>();
        for (DdlEvent e : byLsn.values()) {
          cmds.add(e.lsn() + ": " + truncate(e.command()));
        }
        throw CdcErrors.typeChangedInBatch(ci, bad, String.join("; ", cmds), declared);
      }
    }
    List<BatchEvent> events = new ArrayList<>();
    for (DdlEvent e : byLsn.values()) {
      events.add(new BatchEvent(BatchEvent.Kind.SCHEMA_CHANGE, e.captureInstance(), e.lsn(), e.commitTime(),
          truncate(e.command())));
    }
    return events;
  }

  static String truncate(String command) {
    return command == null || command.length() <= MAX_COMMAND ? command : command.substring(0, MAX_COMMAND);
  }
}
