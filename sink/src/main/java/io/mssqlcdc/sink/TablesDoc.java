package io.mssqlcdc.sink;

import io.mssqlcdc.connector.CdcColumns;
import io.mssqlcdc.sink.facts.FactsColumn;
import io.mssqlcdc.sink.facts.FactsTable;
import io.mssqlcdc.sink.pipeline.CdcStream;
import io.mssqlcdc.sink.tables.Migration;
import io.mssqlcdc.sink.tables.TableKind;
import java.util.List;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/** Renders the generated parts of docs/TABLES.md and docs/OPTIONS.md from the declarations. */
public final class TablesDoc {
  private TablesDoc() {}

  /** The facts columns: position, name, type, meaning. */
  public static String factsColumns() {
    StringBuilder sb = new StringBuilder("| # | Column | Type | Meaning |\n|---|---|---|---|\n");
    for (FactsColumn c : FactsColumn.values()) {
      sb.append("| ").append(c.ordinal() + 1).append(" | `").append(c.column()).append("` | ")
          .append(c.type().sql()).append(" | ").append(escape(c.comment())).append(" |\n");
    }
    return sb.toString();
  }

  /** The bronze columns the library writes: metadata first, captured columns, then the sink's three. */
  public static String bronzeColumns() {
    List<StructField> meta = CdcColumns.metadataFields(true);
    StructType probe = new StructType(meta.toArray(StructField[]::new))
        .add(CdcColumns.BATCH_ID, DataTypes.IntegerType).add(CdcColumns.SNAPSHOT, DataTypes.StringType)
        .add(CdcColumns.CHUNK, DataTypes.IntegerType);
    StringBuilder sb = new StringBuilder("| Column | Type | Meaning |\n|---|---|---|\n");
    StructType commented = BronzeTable.creationSchema(probe);
    for (int i = 0; i < commented.size(); i++) {
      StructField f = commented.fields()[i];
      if (i == meta.size()) {
        sb.append("| *captured columns* | as read | the capture instance's columns, in its order; a newer instance's"
            + " new columns are added at the end (older rows NULL) |\n");
      }
      sb.append("| `").append(f.name()).append("` | ").append(f.dataType().sql()).append(" | ")
          .append(escape(f.getComment().getOrElse(() -> ""))).append(" |\n");
    }
    return sb.toString();
  }

  /** The migrations of a kind: version, what it does. */
  public static String migrations(TableKind kind) {
    StringBuilder sb = new StringBuilder("| Version | Migration | Columns added |\n|---|---|---|\n");
    List<Migration> ms = kind.migrations();
    for (int i = 0; i < ms.size(); i++) {
      Migration m = ms.get(i);
      String cols = m.addColumns().isEmpty() ? "(comments only)"
          : String.join(", ", m.addColumns().stream().map(f -> "`" + f.name() + "`").toList());
      sb.append("| ").append(i + 1).append(" | ").append(m.description()).append(" | ").append(cols).append(" |\n");
    }
    return sb.toString();
  }

  /** Every generated section of docs/TABLES.md, by marker name. */
  public static java.util.Map<String, String> tablesSections() {
    return java.util.Map.of(
        "facts-columns", factsColumns(),
        "bronze-columns", bronzeColumns(),
        "facts-migrations", migrations(FactsTable.KIND),
        "bronze-migrations", migrations(BronzeTable.KIND));
  }

  /** The CdcStream arguments table of docs/OPTIONS.md. */
  public static String pipelineArguments() {
    return arguments(CdcStream.ARGUMENTS);
  }

  /** The generated argument tables of docs/OPTIONS.md, by marker name. */
  public static java.util.Map<String, String> optionsSections() {
    return java.util.Map.of(
        "pipeline-arguments", arguments(CdcStream.ARGUMENTS),
        "backfill-arguments", arguments(io.mssqlcdc.sink.pipeline.Backfill.ARGUMENTS),
        "seed-arguments", arguments(io.mssqlcdc.sink.pipeline.Seed.ARGUMENTS));
  }

  /** A builder's arguments as the docs' table (pipeline, backfill, seed, silver, reconcile). */
  public static String arguments(java.util.List<CdcStream.Argument> arguments) {
    StringBuilder sb = new StringBuilder("| Builder method | Type | Default | Meaning |\n|---|---|---|---|\n");
    for (CdcStream.Argument a : arguments) {
      sb.append("| `").append(a.name()).append("` | ").append(a.type()).append(" | ").append(a.defaultText())
          .append(" | ").append(escape(a.doc())).append(" |\n");
    }
    return sb.toString();
  }

  private static String escape(String s) {
    return s.replace("|", "\\|").replace("\n", " ");
  }
}
