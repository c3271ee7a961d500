package io.mssqlcdc.fake;

import io.mssqlcdc.fake.Catalog.Captured;
import io.mssqlcdc.fake.Catalog.ColumnState;
import io.mssqlcdc.fake.Catalog.DdlRecord;
import io.mssqlcdc.fake.Catalog.InstanceState;
import io.mssqlcdc.fake.Catalog.TableState;
import io.mssqlcdc.lsn.Lsn;
import io.mssqlcdc.types.SqlServerType;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Applies ADD, DROP and ALTER COLUMN to a catalog: the table's columns and rows, the captured
 * types, and a {@code ddl_history} entry at a new (non-commit) LSN in every instance of the table.
 */
final class DdlApplier {
  private final Catalog catalog;
  private final Function<TableState, TableData> data;
  private final Consumer<TableState> persistRows;
  private final Consumer<TableState> forgetRows;

  DdlApplier(Catalog catalog, Function<TableState, TableData> data, Consumer<TableState> persistRows,
      Consumer<TableState> forgetRows) {
    this.catalog = catalog;
    this.data = data;
    this.persistRows = persistRows;
    this.forgetRows = forgetRows;
  }

  Lsn addColumn(TableState t, ColumnDeclaration d) {
    if (t.column(d.name()).isPresent()) {
      throw FakeErrors.duplicateColumn(t.qualified(), d.name());
    }
    t.columns.add(new ColumnState(d.name(), t.nextColumnId++, d.type(), d.computed(), false));
    forgetRows.accept(t);
    return record(t, "ALTER TABLE " + quoted(t) + " ADD [" + d.name() + "] " + d.type().declaration());
  }

  Lsn dropColumn(TableState t, String column) {
    ColumnState col = column(t, column);
    if (t.key.stream().anyMatch(k -> k.equalsIgnoreCase(col.name))) {
      throw FakeErrors.invalidArgument("Column '" + col.name + "' of " + t.qualified(), column,
          "a non-key column to drop (the unique index depends on it)");
    }
    int idx = t.columns.indexOf(col);
    for (Object[] row : data.apply(t).rows()) {
      if (idx < row.length) {
        row[idx] = null;
      }
    }
    col.dropped = true;
    persistRows.accept(t);
    return record(t, "ALTER TABLE " + quoted(t) + " DROP COLUMN [" + col.name + "]");
  }

  Lsn alterColumn(TableState t, String column, SqlServerType type) {
    ColumnState col = column(t, column);
    int idx = t.columns.indexOf(col);
    for (Object[] row : data.apply(t).rows()) {
      if (idx < row.length) {
        row[idx] = ValueCoercion.coerce(t.qualified(), col.name, type, row[idx]);
      }
    }
    col.type = type;
    for (InstanceState i : catalog.instancesOf(t.uid)) {
      i.columns.replaceAll(k -> k.columnId() == col.columnId
          ? new Captured(k.name(), k.ordinal(), k.columnId(), type, k.computed()) : k);
    }
    persistRows.accept(t);
    return record(t, "ALTER TABLE " + quoted(t) + " ALTER COLUMN [" + col.name + "] " + type.declaration());
  }

  private static ColumnState column(TableState t, String column) {
    return t.column(column).orElseThrow(() -> FakeErrors.unknownColumn(t.qualified(), column, t.liveColumnNames()));
  }

  private Lsn record(TableState t, String command) {
    Lsn lsn = catalog.lsnAt(catalog.nextFree);
    catalog.nextFree++;
    for (InstanceState i : catalog.instancesOf(t.uid)) {
      i.ddl.add(new DdlRecord(lsn, command));
    }
    return lsn;
  }

  private static String quoted(TableState t) {
    return "[" + t.schema + "].[" + t.name + "]";
  }
}
