package io.mssqlcdc.sink.tables;

import java.util.List;

/**
 * A kind of table the library writes (bronze, facts, control, silver, reconcile): its migrations
 * and its table comment. Tables are stamped with the table property
 * {@value TableRunner#SCHEMA_VERSION} = the number of migrations applied, the same property and
 * numbers as the Python reference, so tables it wrote are adopted and migrated.
 */
public interface TableKind {
  /** {@code bronze}, {@code facts}, {@code control}, {@code silver} or {@code reconcile}. */
  String name();

  /** Every migration of the kind, oldest first; position + 1 is the version it brings a table to. */
  List<Migration> migrations();

  /** The comment of a table created at the latest version. */
  String tableComment();

  /** The version a new table is created at. */
  default int latestVersion() {
    return migrations().size();
  }
}
