package io.mssqlcdc.fake;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.function.Predicate;

/**
 * The current rows of a source table as one immutable file: magic, column count, row count,
 * then each row's type-tagged values in the table's column order (dropped columns included,
 * as NULL). Rewritten whole by every commit that touches the table.
 */
final class TableRowsFile {
  static final int MAGIC = 0x46435431; // "FCT1"

  private TableRowsFile() {}

  static void write(FakeStore store, String relative, int columnCount, Collection<Object[]> rows) {
    store.writeAtomically(relative, out -> {
      out.writeInt(MAGIC);
      out.writeInt(columnCount);
      out.writeLong(rows.size());
      for (Object[] row : rows) {
        for (int i = 0; i < columnCount; i++) {
          ValueCodec.write(out, i < row.length ? row[i] : null);
        }
      }
    });
  }

  /** Streams the rows, padded with NULLs to {@code width} (columns added after the write). */
  static final class Reader implements AutoCloseable {
    private final FastInput in;
    private final int columns;
    private final int width;
    /** Columns to decode (the others are skipped and read as NULL); null: all. */
    private final boolean[] decode;
    private long left;

    Reader(Path file, int width) {
      this(file, width, null);
    }

    /** @param decode the columns to decode, the others skipped (NULL in the rows); null: all */
    Reader(Path file, int width, boolean[] decode) {
      this.decode = decode;
      try {
        this.in = new FastInput(Files.newInputStream(file), 1 << 16);
      } catch (IOException e) {
        throw FakeErrors.io(file, e);
      }
      try {
        if (in.readInt() != MAGIC) {
          throw FakeErrors.corrupt(file, "not a table rows file (bad magic number)");
        }
        this.columns = in.readInt();
        this.left = in.readLong();
      } catch (UncheckedIOException e) {
        in.close();
        throw FakeErrors.corrupt(file, e.getMessage());
      }
      this.width = Math.max(width, columns);
    }

    /** The next row, or null at the end. */
    Object[] next() {
      return next(-1, row -> true);
    }

    /**
     * The next row that {@code accept} takes, or null at the end, as an index seek reads a key
     * range: each row's columns are decoded up to column {@code testAfter} (the last key column),
     * then {@code accept} sees the row so far, and the rest of a row it refuses is skipped, not
     * decoded. {@code testAfter} beyond the file's columns (a key added after the write, NULL
     * here) tests the whole row; below 0, every row is taken.
     */
    Object[] next(int testAfter, Predicate<Object[]> accept) {
      boolean[] d = decode;
      while (left > 0) {
        left--;
        Object[] row = new Object[width];
        boolean taken = true;
        for (int i = 0; i < columns; i++) {
          if (taken && (d == null || (i < d.length && d[i]))) {
            row[i] = ValueCodec.read(in);
          } else {
            ValueCodec.skip(in);
          }
          if (i == testAfter) {
            taken = accept.test(row);
          }
        }
        if (testAfter >= columns) {
          taken = accept.test(row);
        }
        if (taken) {
          return row;
        }
      }
      return null;
    }

    @Override
    public void close() {
      in.close();
    }
  }
}
