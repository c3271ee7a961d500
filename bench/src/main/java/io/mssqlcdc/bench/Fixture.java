package io.mssqlcdc.bench;

import java.math.BigDecimal;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A benchmark table: its columns (SQL Server types, as the fake declares them), its key, how
 * many rows and in commits of how many rows. Every value is a pure function of the row number
 * {@code k} (0, 1, ...) and the column: the id column is {@code k} itself, so a test can compute
 * what any path must read without the bench's code.
 *
 * @param name the fixture's name (its directory under the data directory)
 * @param table the table in schema {@code dbo}; its capture instance is {@code dbo_<table>}
 * @param columns {@code "<name> <type>"}, the first one {@code id int}
 * @param keyed whether {@code id} is the primary key (the snapshot reader's key ranges need one)
 * @param rows rows inserted
 * @param rowsPerCommit rows per transaction
 */
public record Fixture(String name, String table, List<String> columns, boolean keyed, int rows, int rowsPerCommit) {
  /** Bumped when the generated values change, so cached data is regenerated. */
  static final int GENERATION = 1;

  static final LocalDateTime BASE = LocalDateTime.of(2026, 1, 1, 0, 0);

  private static final String[] WIDE_TYPES = {"decimal(18,2)", "nvarchar(40)", "int", "datetime2(3)"};

  /** Five columns: id int, name nvarchar(40), amount decimal(18,2), created datetime2(3), qty bigint. */
  public static Fixture narrow(int rows) {
    return new Fixture("narrow-" + rows, "narrow",
        List.of("id int", "name nvarchar(40)", "amount decimal(18,2)", "created datetime2(3)", "qty bigint"), true, rows,
        Math.max(1, Math.min(50_000, rows / 20)));
  }

  /**
   * The narrow table in commits of {@code rowsPerCommit} rows (the bronze case's large batches: a
   * micro-batch of {@code maxCommitsPerBatch} commits holds an exact number of rows).
   */
  public static Fixture narrow(int rows, int rowsPerCommit) {
    Fixture n = narrow(rows);
    return new Fixture(n.name() + "x" + rowsPerCommit, n.table(), n.columns(), true, rows, rowsPerCommit);
  }

  /** Ninety columns: id int, then decimal(18,2), nvarchar(40), int and datetime2(3) columns in turn. */
  public static Fixture wide(int rows) {
    List<String> cols = new ArrayList<>();
    cols.add("id int");
    for (int j = 1; j < 90; j++) {
      cols.add(String.format(Locale.ROOT, "c%02d %s", j, WIDE_TYPES[(j - 1) % WIDE_TYPES.length]));
    }
    return new Fixture("wide-" + rows, "wide", List.copyOf(cols), true, rows, Math.max(1, Math.min(5_000, rows / 20)));
  }

  /** The wide table in commits of {@code rowsPerCommit} rows (the bronze case's longer runs). */
  public static Fixture wide(int rows, int rowsPerCommit) {
    Fixture w = wide(rows);
    return new Fixture(w.name() + "x" + rowsPerCommit, w.table(), w.columns(), true, rows, rowsPerCommit);
  }

  /** One transaction of {@code rows} rows: id int, payload varchar(100) (100 characters), no key. */
  public static Fixture bigTransaction(int rows) {
    return new Fixture("tx-" + rows, "tx", List.of("id int", "payload varchar(100)"), false, rows, rows);
  }

  /** The capture instance. */
  public String captureInstance() {
    return "dbo_" + table;
  }

  /** What the cached data was generated from: a different descriptor regenerates it. */
  String descriptor() {
    return "generation=" + GENERATION + " table=" + table + " rows=" + rows + " perCommit=" + rowsPerCommit
        + " keyed=" + keyed + " columns=" + columns;
  }

  public String columnName(int j) {
    String c = columns.get(j);
    return c.substring(0, c.indexOf(' '));
  }

  String columnType(int j) {
    String c = columns.get(j);
    return c.substring(c.indexOf(' ') + 1);
  }

  /** The value of column {@code j} in row {@code k}, as the script inserts it. */
  public Object value(int j, int k) {
    if (j == 0) {
      return k;
    }
    String type = columnType(j);
    return switch (type) {
      case "nvarchar(40)" -> j == 1 && table.equals("narrow") ? "customer-" + k : "s" + j + "-" + (k % 10_007);
      case "decimal(18,2)" -> BigDecimal.valueOf((k * 37L + j) % 1_000_000_000L, 2);
      case "datetime2(3)" -> BASE.plusSeconds(k).plusNanos(j * 1_000_000L);
      case "bigint" -> k * 3L;
      case "int" -> (int) ((k * 7L + j) % 1_000_003);
      case "varchar(100)" -> PAYLOAD;
      default -> throw new IllegalStateException("no generator for " + type);
    };
  }

  private static final String PAYLOAD = "x".repeat(100);
}
