package io.mssqlcdc.catalog.procedures;

import java.util.List;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;

/**
 * One parameter of a procedure, declared once: name (the Java API's argument name), SQL type,
 * default (a SQL literal; {@code null} = required), and its doc. docs/SQL.md is generated from
 * these declarations.
 *
 * @param defaultSql the default as SQL text ({@code NULL}, {@code false}, {@code 'hour'}); null when required
 * @param defaultDoc the default as the doc states it (NULL defaults mean the Java API's default)
 */
record Param(String name, DataType type, String defaultSql, String defaultDoc, String doc) {
  static final DataType STRING_LIST = DataTypes.createArrayType(DataTypes.StringType, true);
  static final DataType STRING_MAP = DataTypes.createMapType(DataTypes.StringType, DataTypes.StringType, true);

  static Param required(String name, DataType type, String doc) {
    return new Param(name, type, null, "required", doc);
  }

  static Param optional(String name, DataType type, String defaultSql, String defaultDoc, String doc) {
    return new Param(name, type, defaultSql, defaultDoc, doc);
  }

  /** The catalog table a procedure works on. */
  static Param table(String what) {
    return required("table", DataTypes.StringType,
        "The source table, `schema.table` as `SHOW TABLES IN <catalog>.<schema>` lists it (matched exactly, then"
            + " ignoring case), or one of its capture instances (`dbo_orders`, no dot: read through that instance, as"
            + " the `captureInstance` option would): " + what);
  }

  /** Reader options over the catalog's. */
  static Param options() {
    return optional("options", STRING_MAP, "NULL", "none",
        "Reader options of `format(\"mssql_cdc\")` (docs/OPTIONS.md) over the catalog's own, e.g."
            + " `map('maxCommitsPerBatch', '100')`; not `captureInstance` (the table gives it).");
  }

  boolean isRequired() {
    return defaultSql == null;
  }

  ProcedureParameter toSpark() {
    ProcedureParameter.Builder b = ProcedureParameter.in(name, type).comment(doc);
    if (defaultSql != null) {
      b = b.defaultValue(defaultSql);
    }
    return b.build();
  }

  /** Declarations with no duplicate name; required ones first (Spark binds named arguments so). */
  static List<Param> check(List<Param> params) {
    boolean optionalSeen = false;
    java.util.Set<String> names = new java.util.HashSet<>();
    for (Param p : params) {
      if (!names.add(p.name().toLowerCase(java.util.Locale.ROOT))) {
        throw new IllegalStateException("parameter " + p.name() + " declared twice");
      }
      if (p.isRequired() && optionalSeen) {
        throw new IllegalStateException("required parameter " + p.name() + " after an optional one");
      }
      optionalSeen |= !p.isRequired();
    }
    return List.copyOf(params);
  }
}
