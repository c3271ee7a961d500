package io.mssqlcdc.client;

import java.io.Serializable;

/** A source table: schema and name, as SQL Server spells them. */
public record TableRef(String schema, String table) implements Serializable {
  @Override
  public String toString() {
    return schema + "." + table;
  }
}
