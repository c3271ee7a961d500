package io.mssqlcdc.sink.facts;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;

/**
 * One row of the facts table, built column by column; unset columns are NULL. Values are checked
 * against the column's type when set (STRING: {@link String}; BIGINT: {@link Long}; DOUBLE:
 * {@link Double}; TIMESTAMP_NTZ: {@link LocalDateTime} in UTC, or an {@link Instant} converted to
 * UTC), so a wrong value fails where it is set, not in the Delta write.
 */
public final class FactsRow {
  private final EnumMap<FactsColumn, Object> values = new EnumMap<>(FactsColumn.class);

  /** Sets {@code column} to {@code value} (null clears it). */
  public FactsRow set(FactsColumn column, Object value) {
    Objects.requireNonNull(column, "column");
    if (value == null) {
      values.remove(column);
      return this;
    }
    values.put(column, coerce(column, value));
    return this;
  }

  /** The value of {@code column}, or null. */
  public Object get(FactsColumn column) {
    return values.get(column);
  }

  /** The values set, by column. */
  public Map<FactsColumn, Object> values() {
    return java.util.Collections.unmodifiableMap(values);
  }

  /** A copy of this row. */
  public FactsRow copy() {
    FactsRow r = new FactsRow();
    r.values.putAll(values);
    return r;
  }

  /** The row in {@link FactsTable#schema()} order. */
  public Row toRow() {
    Object[] out = new Object[FactsColumn.values().length];
    for (FactsColumn c : FactsColumn.values()) {
      out[c.ordinal()] = values.get(c);
    }
    return RowFactory.create(out);
  }

  private static Object coerce(FactsColumn c, Object v) {
    DataType t = c.type();
    if (t.equals(DataTypes.StringType) && v instanceof String) {
      return v;
    }
    if (t.equals(DataTypes.LongType) && (v instanceof Long || v instanceof Integer)) {
      return ((Number) v).longValue();
    }
    if (t.equals(DataTypes.DoubleType) && v instanceof Number n) {
      return n.doubleValue();
    }
    if (t.equals(DataTypes.TimestampNTZType)) {
      if (v instanceof LocalDateTime) {
        return v;
      }
      if (v instanceof Instant i) {
        return LocalDateTime.ofInstant(i, ZoneOffset.UTC);
      }
    }
    throw new IllegalArgumentException("Facts column " + c.column() + " is " + t.sql() + "; cannot take a "
        + v.getClass().getSimpleName() + " (" + v + ")");
  }

  @Override
  public String toString() {
    return "FactsRow" + Arrays.toString(values.entrySet().toArray());
  }
}
