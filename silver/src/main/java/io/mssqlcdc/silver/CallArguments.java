package io.mssqlcdc.silver;

import io.mssqlcdc.errors.SilverErrors;
import io.mssqlcdc.finalization.Granularity;
import io.mssqlcdc.options.CdcReaderOptions;
import io.mssqlcdc.sink.tables.TableRef;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.SparkSession;

/**
 * The arguments {@link ApplyChanges} and {@link ApplyHistory} share, checked before anything is read
 * or written (granularity first), in the order and with the messages of docs/SILVER.md's errors.
 *
 * @param facts null when not given
 * @param keys null when not given (the unique index is read through the options)
 * @param reader null without options
 */
record CallArguments(TableRef bronze, TableRef target, TableRef control, TableRef facts, String captureInstance,
    List<String> keys, CdcReaderOptions reader, Granularity granularity) {

  /**
   * Checks the arguments of one call.
   *
   * @param kind {@code silver} or {@code history}, for the messages
   * @throws io.mssqlcdc.errors.CdcConfigException for an invalid argument
   */
  static CallArguments check(SparkSession spark, String kind, String bronze, String target, String controlTable,
      String factsTable, String captureInstance, List<String> keys, Map<String, String> options, String granularity) {
    Granularity g = Granularity.parse(granularity); // before anything is read or written
    if (spark == null) {
      throw SilverErrors.invalidArgument("spark", null, "the SparkSession (in PySpark spark._jsparkSession)");
    }
    TableRef b = table("bronze", bronze, "the stream's target, e.g. bronze.orders");
    TableRef t = table("target", target, "the " + kind + " table, e.g. " + kind + ".orders");
    TableRef c = table("controlTable", controlTable, "the control table, e.g. ops.table_finalization");
    TableRef f = factsTable == null ? null : table("factsTable", factsTable, "the stream's facts table");
    if (b.equals(t)) {
      throw SilverErrors.conflict("target '" + target + "' is bronze: " + kind + " is a table of its own.");
    }
    if (t.equals(c) || (f != null && (t.equals(f) || b.equals(f)))) {
      throw SilverErrors.conflict("bronze, target, controlTable and factsTable must be four different tables.");
    }
    String ci = captureInstance;
    if (ci == null || ci.isBlank()) {
      ci = options.entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase("captureInstance"))
          .map(Map.Entry::getValue).findFirst().orElse(null);
    }
    if (ci == null || ci.isBlank()) {
      throw SilverErrors.noCaptureInstance();
    }
    List<String> k = null;
    if (keys != null && !keys.isEmpty()) {
      for (String key : keys) {
        if (key == null || key.isBlank()) {
          throw SilverErrors.invalidArgument("keys", String.valueOf(keys), "a list of column names, none blank");
        }
      }
      k = List.copyOf(keys);
    }
    CdcReaderOptions reader = null;
    if (!options.isEmpty()) {
      Map<String, String> o = new LinkedHashMap<>(options);
      if (o.keySet().stream().noneMatch(x -> x.equalsIgnoreCase("captureInstance"))) {
        o.put("captureInstance", ci);
      }
      reader = CdcReaderOptions.parse(o, CdcReaderOptions.Reader.STREAM);
    }
    return new CallArguments(b, t, c, f, ci, k, reader, g);
  }

  private static TableRef table(String name, String value, String expected) {
    if (value == null || value.isBlank()) {
      throw SilverErrors.invalidArgument(name, value, expected);
    }
    return TableRef.of(value);
  }
}
