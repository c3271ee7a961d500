package io.mssqlcdc.silver;

import io.mssqlcdc.sink.tables.Migration;
import io.mssqlcdc.sink.tables.TableKind;
import java.util.List;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * The history table kind ({@code history}, no migrations; decision 0016): one row per version of
 * each key of one source table. Columns: the captured columns as bronze holds them, then the six
 * below. It gains the columns bronze gains, and never changes a column's type.
 */
public final class HistoryTable implements TableKind {
  /** The one instance. */
  public static final HistoryTable KIND = new HistoryTable();

  static final String VALID_FROM = "__valid_from";
  static final String VALID_TO = "__valid_to";
  static final String FROM_LSN = "__from_lsn";
  static final String TO_LSN = "__to_lsn";
  static final String IS_DELETED = "__is_deleted";
  static final String GAP = "__gap";

  /** The library's columns, in the table's order. */
  static final List<String> COLUMNS = List.of(VALID_FROM, VALID_TO, FROM_LSN, TO_LSN, IS_DELETED, GAP);

  static final String COMMENT = "mssql-cdc-spark history (SCD type 2): one row per version of each key of a SQL Server"
      + " table, built from the bronze change log by ApplyHistory. The table as of time T: __valid_from <= T AND"
      + " (__valid_to IS NULL OR __valid_to > T) AND NOT __is_deleted.";

  private HistoryTable() {}

  @Override
  public String name() {
    return "history";
  }

  @Override
  public List<Migration> migrations() {
    return List.of();
  }

  @Override
  public String tableComment() {
    return COMMENT;
  }

  /** The six columns the history adds after the captured ones, with their comments. */
  public static List<StructField> libraryColumns() {
    return List.of(
        field(VALID_FROM, DataTypes.TimestampNTZType, "Commit time (UTC) of the transaction that opened this version"
            + " (a snapshot's: its LSN's commit time)."),
        field(VALID_TO, DataTypes.TimestampNTZType, "Commit time (UTC) of the transaction that closed this version;"
            + " NULL while it is the key's current version."),
        field(FROM_LSN, DataTypes.StringType, "LSN (0x + 20 hex digits) of the transaction (or snapshot) that opened"
            + " this version; with the key it identifies the row."),
        field(TO_LSN, DataTypes.StringType, "LSN of the transaction (or re-snapshot) that closed this version; NULL"
            + " while current."),
        field(IS_DELETED, DataTypes.BooleanType, "True on a tombstone: the key was deleted at __from_lsn (written only"
            + " with storeDeletes)."),
        field(GAP, DataTypes.BooleanType, "True when the version was closed at a re-snapshot's LSN because CDC"
            + " retention lost the changes before it: __valid_to is the latest it can have ended."));
  }

  private static StructField field(String name, org.apache.spark.sql.types.DataType type, String comment) {
    return new StructField(name, type, true, Metadata.empty()).withComment(comment);
  }

  /** The columns of a new history table for {@code captured} (bronze's captured columns, no comments). */
  public static StructType creationSchema(List<StructField> captured) {
    StructType s = new StructType();
    for (StructField f : captured) {
      s = s.add(new StructField(f.name(), f.dataType(), true, Metadata.empty()));
    }
    for (StructField f : libraryColumns()) {
      s = s.add(f);
    }
    return s;
  }
}
