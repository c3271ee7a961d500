package io.mssqlcdc.silver;

import org.apache.spark.sql.types.StructField;

/** Renders the silver parts of docs/TABLES.md and docs/OPTIONS.md from the declarations. */
public final class SilverDoc {
  private SilverDoc() {}

  /** The silver table's columns. */
  public static String silverColumns() {
    StringBuilder sb = new StringBuilder("| Column | Type | Meaning |\n|---|---|---|\n");
    sb.append("| *captured columns* | as in bronze | the source's columns as bronze holds them, in bronze's order;"
        + " columns bronze gains (a newer capture instance's) are added at the end (older rows NULL); types never"
        + " change |\n");
    for (StructField f : SilverTable.libraryColumns()) {
      sb.append("| `").append(f.name()).append("` | ").append(f.dataType().sql()).append(" | ")
          .append(escape(f.getComment().getOrElse(() -> ""))).append(" |\n");
    }
    return sb.toString();
  }

  /** The ApplyChanges arguments table. */
  public static String arguments() {
    return io.mssqlcdc.sink.TablesDoc.arguments(ApplyChanges.ARGUMENTS);
  }


  /** The history table's columns. */
  public static String historyColumns() {
    StringBuilder sb = new StringBuilder("| Column | Type | Meaning |\n|---|---|---|\n");
    sb.append("| *captured columns* | as in bronze | the version's image: the source's columns as bronze holds them, in"
        + " bronze's order; columns bronze gains are added at the end (older rows NULL); types never change |\n");
    for (StructField f : HistoryTable.libraryColumns()) {
      sb.append("| `").append(f.name()).append("` | ").append(f.dataType().sql()).append(" | ")
          .append(escape(f.getComment().getOrElse(() -> ""))).append(" |\n");
    }
    return sb.toString();
  }

  /** The ApplyHistory arguments table. */
  public static String historyArguments() {
    return io.mssqlcdc.sink.TablesDoc.arguments(ApplyHistory.ARGUMENTS);
  }

  private static String escape(String s) {
    return s.replace("|", "\\|").replace("\n", " ");
  }
}
