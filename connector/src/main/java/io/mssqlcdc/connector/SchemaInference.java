package io.mssqlcdc.connector;

import io.mssqlcdc.client.CaptureInstance;
import io.mssqlcdc.client.CapturedColumn;
import io.mssqlcdc.client.CdcClient;
import io.mssqlcdc.errors.CdcErrors;
import io.mssqlcdc.options.CdcReaderOptions;
import io.mssqlcdc.types.TypeMapping;
import io.mssqlcdc.types.TypeWidening;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The captured columns of the stream and snapshot schema (reference-behaviour §4, §4.2): the
 * {@code columns} option's DDL when given; otherwise inferred from CDC metadata at
 * {@code load()} on the driver, as the union by name (ignoring case, first spelling wins) of the
 * table's capture instances, older first. A column two instances type differently takes the
 * newer type when it holds the older's values, else the load fails. Computed columns are left
 * out with a warning; names the library reserves fail.
 */
public final class SchemaInference {
  private static final Logger LOG = LoggerFactory.getLogger(SchemaInference.class);

  private SchemaInference() {}

  /** The captured columns to read, in order. */
  public static StructType capturedColumns(CdcReaderOptions options, CdcClient client) {
    StructType captured = options.columns()
        .map(SchemaInference::declared)
        .orElseGet(() -> inferred(client, client.captureInstances(options.captureInstance())));
    checkReserved(captured);
    return captured;
  }

  /** The full schema: metadata columns, then {@code captured}. */
  public static StructType withMetadata(StructType captured, boolean includeCommandId) {
    List<StructField> fields = new ArrayList<>(CdcColumns.metadataFields(includeCommandId));
    fields.addAll(List.of(captured.fields()));
    return new StructType(fields.toArray(new StructField[0]));
  }

  private static final String COLUMNS_EXPECTED = "a Spark DDL column list such as 'order_id INT, status STRING'";

  /**
   * The {@code columns} option's schema.
   *
   * @throws io.mssqlcdc.errors.CdcConfigException naming the option, the value and what is
   *     accepted: text Spark cannot parse (its {@code ParseException} is a checked exception in
   *     Java's sense, not a {@code RuntimeException}), a name listed twice (ignoring case, as
   *     columns are matched), a type the connector cannot cast captured values to
   */
  static StructType declared(String ddl) {
    StructType schema;
    try {
      schema = StructType.fromDDL(ddl);
    } catch (Exception e) {
      throw CdcErrors.invalidOption("columns", ddl, COLUMNS_EXPECTED,
          "Spark could not parse it: " + firstLine(e.getMessage()));
    }
    if (schema.fields().length == 0) {
      throw CdcErrors.invalidOption("columns", ddl, COLUMNS_EXPECTED, "It lists no column; omit it to infer them.");
    }
    Map<String, String> seen = new LinkedHashMap<>();
    for (StructField f : schema.fields()) {
      String earlier = seen.putIfAbsent(f.name().toLowerCase(Locale.ROOT), f.name());
      if (earlier != null) {
        throw CdcErrors.invalidOption("columns", ddl, COLUMNS_EXPECTED,
            "'" + f.name() + "' is listed twice (names match ignoring case, as SQL Server's do).");
      }
      SparkValues.converter(f.name(), f.dataType()); // fails on a type values cannot be cast to
    }
    return schema;
  }

  static StructType inferred(CdcClient client, List<CaptureInstance> instances) {
    Map<String, StructField> byName = new LinkedHashMap<>();
    Map<String, String> ownerOf = new LinkedHashMap<>();
    List<String> computed = new ArrayList<>();
    for (CaptureInstance ci : instances) {
      for (CapturedColumn c : client.capturedColumns(ci.name())) {
        if (c.computed()) {
          if (!computed.contains(c.name())) {
            computed.add(c.name());
          }
          continue;
        }
        String key = c.name().toLowerCase(Locale.ROOT);
        DataType type = DataType.fromDDL(TypeMapping.sparkType(ci.name(), c.name(), c.type()));
        StructField existing = byName.get(key);
        if (existing == null) {
          byName.put(key, new StructField(c.name(), type, true, org.apache.spark.sql.types.Metadata.empty()));
          ownerOf.put(key, ci.name());
        } else if (!existing.dataType().equals(type)) {
          if (!TypeWidening.fits(existing.dataType().sql(), type.sql())) {
            throw CdcErrors.schemaChanged(
                "Capture instances '" + ownerOf.get(key) + "' and '" + ci.name() + "' of the same table capture '"
                    + c.name() + "' as " + existing.dataType().sql() + " and " + type.sql()
                    + ", and the newer type does not hold the older's values. Pass 'columns' with a type that holds"
                    + " both, or disable the older instance once the stream has read past '" + ci.name()
                    + "''s start (" + ci.startLsn() + ").");
          }
          byName.put(key, new StructField(existing.name(), type, true, existing.metadata()));
        }
      }
    }
    if (!computed.isEmpty()) {
      LOG.warn("mssql_cdc: computed column(s) {} left out of the schema: CDC stores NULL for them in every change"
          + " row. Compute them downstream from the columns they are computed from.", computed);
    }
    return new StructType(byName.values().toArray(new StructField[0]));
  }

  static void checkReserved(StructType captured) {
    List<String> bad = new ArrayList<>();
    for (StructField f : captured.fields()) {
      if (CdcColumns.isReserved(f.name())) {
        bad.add(f.name());
      }
    }
    if (!bad.isEmpty()) {
      throw CdcErrors.reservedColumns(bad, CdcColumns.RESERVED);
    }
  }

  private static String firstLine(String s) {
    if (s == null) {
      return "";
    }
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }
}
