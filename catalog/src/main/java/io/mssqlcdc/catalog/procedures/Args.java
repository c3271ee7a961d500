package io.mssqlcdc.catalog.procedures;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.catalyst.util.MapData;

/**
 * The arguments of one {@code CALL}, as Spark binds them: one value per declared {@link Param},
 * in declaration order, defaults filled in. Values are read by parameter name; a SQL {@code NULL}
 * reads as Java {@code null}, so the Java API receives what a Java caller would leave unset.
 */
final class Args {
  private final List<Param> params;
  private final InternalRow row;

  Args(List<Param> params, InternalRow row) {
    this.params = params;
    this.row = row;
  }

  private int index(String name) {
    for (int i = 0; i < params.size(); i++) {
      if (params.get(i).name().equals(name)) {
        return i;
      }
    }
    throw new IllegalStateException("no parameter " + name);
  }

  boolean isNull(String name) {
    return row.isNullAt(index(name));
  }

  String string(String name) {
    int i = index(name);
    return row.isNullAt(i) ? null : row.getUTF8String(i).toString();
  }

  Boolean bool(String name) {
    int i = index(name);
    return row.isNullAt(i) ? null : row.getBoolean(i);
  }

  Long longValue(String name) {
    int i = index(name);
    return row.isNullAt(i) ? null : row.getLong(i);
  }

  Integer intValue(String name) {
    int i = index(name);
    return row.isNullAt(i) ? null : row.getInt(i);
  }

  Double doubleValue(String name) {
    int i = index(name);
    return row.isNullAt(i) ? null : row.getDouble(i);
  }

  /** An {@code ARRAY<STRING>}; null elements stay null (the Java API names them). */
  List<String> strings(String name) {
    int i = index(name);
    if (row.isNullAt(i)) {
      return null;
    }
    ArrayData a = row.getArray(i);
    List<String> out = new ArrayList<>(a.numElements());
    for (int j = 0; j < a.numElements(); j++) {
      out.add(a.isNullAt(j) ? null : a.getUTF8String(j).toString());
    }
    return out;
  }

  /** A {@code MAP<STRING, STRING>}, in the order given; empty for NULL. */
  Map<String, String> map(String name) {
    int i = index(name);
    Map<String, String> out = new LinkedHashMap<>();
    if (row.isNullAt(i)) {
      return out;
    }
    MapData m = row.getMap(i);
    ArrayData keys = m.keyArray();
    ArrayData values = m.valueArray();
    for (int j = 0; j < m.numElements(); j++) {
      out.put(keys.getUTF8String(j).toString(), values.isNullAt(j) ? null : values.getUTF8String(j).toString());
    }
    return out;
  }
}
