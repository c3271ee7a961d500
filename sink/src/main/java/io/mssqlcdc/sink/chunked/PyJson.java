package io.mssqlcdc.sink.chunked;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Iterator;
import java.util.Map;

/**
 * JSON in the form the Python reference's {@code json.dumps} writes by default (", " and ": "
 * separators, non-ASCII escaped), for payloads the reference reads and writes in facts rows and
 * commit metadata (snapshot open, plan, chunk and wave details), so both implementations write the
 * same bytes for the same payload.
 */
public final class PyJson {
  static final ObjectMapper MAPPER = new ObjectMapper();
  public static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private PyJson() {}

  public static ObjectNode object() {
    return NODES.objectNode();
  }

  public static ArrayNode array() {
    return NODES.arrayNode();
  }

  /** Parses {@code text}; an empty object for null, blank or unreadable text. */
  public static JsonNode parse(String text) {
    if (text == null || text.isBlank()) {
      return object();
    }
    try {
      JsonNode n = MAPPER.readTree(text);
      return n == null ? object() : n;
    } catch (Exception e) {
      return object();
    }
  }

  /** {@code node} as Python's {@code json.dumps(node)} writes it. */
  public static String write(JsonNode node) {
    StringBuilder sb = new StringBuilder();
    write(node, sb);
    return sb.toString();
  }

  private static void write(JsonNode n, StringBuilder sb) {
    if (n == null || n.isNull() || n.isMissingNode()) {
      sb.append("null");
    } else if (n.isObject()) {
      sb.append('{');
      boolean first = true;
      for (Iterator<Map.Entry<String, JsonNode>> it = n.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        if (!first) {
          sb.append(", ");
        }
        first = false;
        string(e.getKey(), sb);
        sb.append(": ");
        write(e.getValue(), sb);
      }
      sb.append('}');
    } else if (n.isArray()) {
      sb.append('[');
      for (int i = 0; i < n.size(); i++) {
        if (i > 0) {
          sb.append(", ");
        }
        write(n.get(i), sb);
      }
      sb.append(']');
    } else if (n.isTextual()) {
      string(n.asText(), sb);
    } else if (n.isBoolean()) {
      sb.append(n.asBoolean() ? "true" : "false");
    } else {
      sb.append(n.toString());
    }
  }

  private static void string(String s, StringBuilder sb) {
    sb.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> sb.append("\\\"");
        case '\\' -> sb.append("\\\\");
        case '\n' -> sb.append("\\n");
        case '\r' -> sb.append("\\r");
        case '\t' -> sb.append("\\t");
        case '\b' -> sb.append("\\b");
        case '\f' -> sb.append("\\f");
        default -> {
          if (c < 0x20 || c > 0x7e) {
            sb.append(String.format("\\u%04x", (int) c));
          } else {
            sb.append(c);
          }
        }
      }
    }
    sb.append('"');
  }
}
