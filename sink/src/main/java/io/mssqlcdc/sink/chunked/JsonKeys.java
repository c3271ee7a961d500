package io.mssqlcdc.sink.chunked;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.mssqlcdc.connector.snapshot.KeyValues;
import io.mssqlcdc.types.SqlServerType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * Key bounds as JSON, the form chunk plans store them in and {@code snapshotChunks} reads them
 * back from (reference-behaviour §12.9 {@code _json_key}): a scalar for a one-column key, a list
 * for several, {@code null} for an open end; numbers as JSON numbers, values JSON cannot type as
 * the text SQL Server's {@code CAST} reads back (dates and times ISO-8601, binary {@code 0x} hex).
 */
public final class JsonKeys {
  private static final DateTimeFormatter DATETIME = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSSS");
  private static final DateTimeFormatter OFFSET = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSSSxxx");

  private JsonKeys() {}

  /** The JSON of key {@code values} (one per key column); {@code null} values are JSON null. */
  public static JsonNode of(List<Object> values) {
    if (values == null) {
      return PyJson.NODES.nullNode();
    }
    if (values.size() == 1) {
      return scalar(values.get(0));
    }
    ArrayNode a = PyJson.array();
    for (Object v : values) {
      a.add(scalar(v));
    }
    return a;
  }

  /** The JSON of one key value. */
  public static JsonNode scalar(Object v) {
    if (v == null) {
      return PyJson.NODES.nullNode();
    }
    if (v instanceof Short s) {
      return PyJson.NODES.numberNode(s.intValue());
    }
    if (v instanceof Integer i) {
      return PyJson.NODES.numberNode(i);
    }
    if (v instanceof Long l) {
      return PyJson.NODES.numberNode(l);
    }
    if (v instanceof BigInteger b) {
      return PyJson.NODES.numberNode(b);
    }
    if (v instanceof BigDecimal d) {
      return PyJson.NODES.textNode(d.toPlainString());   // as the reference's _json_key: exact text, not a float
    }
    if (v instanceof Boolean b) {
      return PyJson.NODES.booleanNode(b);
    }
    if (v instanceof Float || v instanceof Double) {
      return PyJson.NODES.numberNode(((Number) v).doubleValue());
    }
    if (v instanceof LocalDate d) {
      return PyJson.NODES.textNode(d.toString());
    }
    if (v instanceof LocalDateTime t) {
      return PyJson.NODES.textNode(trimmed(DATETIME.format(t)));
    }
    if (v instanceof OffsetDateTime t) {
      String text = OFFSET.format(t);
      return PyJson.NODES.textNode(trimmed(text.substring(0, text.length() - 6)) + text.substring(text.length() - 6));
    }
    if (v instanceof byte[] b) {
      return PyJson.NODES.textNode("0x" + HexFormat.of().withUpperCase().formatHex(b));
    }
    return PyJson.NODES.textNode(v.toString());
  }

  /**
   * A 7-digit fraction cut to milliseconds when it is whole milliseconds (what {@code CAST(... AS
   * datetime)} accepts: a {@code datetime} key's values always are), else to microseconds when whole
   * ones, else kept (reference-behaviour §12.9 {@code _text}: ms for datetime, µs otherwise).
   */
  private static String trimmed(String text) {
    int dot = text.lastIndexOf('.');
    String frac = text.substring(dot + 1);
    if (frac.endsWith("0000")) {
      return text.substring(0, dot + 4);
    }
    if (frac.endsWith("0")) {
      return text.substring(0, dot + 7);
    }
    return text;
  }

  /**
   * The key values of a JSON bound for key columns of {@code types} (Java values as the client
   * takes them); {@code null} for a JSON null (an open end).
   */
  public static List<Object> values(JsonNode bound, List<SqlServerType> types) {
    if (bound == null || bound.isNull() || bound.isMissingNode()) {
      return null;
    }
    List<JsonNode> parts = new ArrayList<>();
    if (types.size() == 1) {
      parts.add(bound);
    } else {
      bound.forEach(parts::add);
    }
    if (parts.size() != types.size()) {
      throw new IllegalArgumentException("Bound " + bound + " has " + parts.size() + " values; the key has "
          + types.size() + " columns");
    }
    List<Object> out = new ArrayList<>();
    for (int i = 0; i < parts.size(); i++) {
      JsonNode p = parts.get(i);
      Object raw = p.isNull() ? null : p.isTextual() ? p.asText() : p.isBoolean() ? (Object) p.asBoolean()
          : p.isIntegralNumber() ? p.bigIntegerValue() : p.decimalValue();
      if (raw instanceof BigInteger bi && types.get(i).name().matches("tinyint|smallint|int|bigint")
          && bi.bitLength() >= 64) {
        out.add(bi);
        continue;
      }
      out.add(KeyValues.typed(raw, types.get(i)));
    }
    return out;
  }
}
