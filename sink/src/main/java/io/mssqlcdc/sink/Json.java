package io.mssqlcdc.sink;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

/** JSON helpers shared by the sink's persisted payloads. */
final class Json {
  static final ObjectMapper MAPPER = new ObjectMapper();

  private Json() {}

  /** {@code s} as a JSON string literal. */
  static String quote(String s) {
    try {
      return MAPPER.writeValueAsString(s);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }
}
