package io.mssqlcdc.connector.snapshot;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.mssqlcdc.errors.CdcErrors;
import io.mssqlcdc.options.CdcReaderOptions;
import io.mssqlcdc.options.Identifiers;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/** Parses {@code snapshotKeys}: a non-empty JSON list of distinct column names, e.g. {@code ["order_id"]}. */
final class SnapshotKeys {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String EXPECTED = "a non-empty JSON list of column names such as [\"order_id\"]";

  private SnapshotKeys() {}

  static List<String> parse(String json) {
    String name = CdcReaderOptions.SNAPSHOT_KEYS.name();
    JsonNode root;
    try {
      root = JSON.readTree(json);
    } catch (Exception e) {
      throw CdcErrors.invalidOption(name, json, EXPECTED, "It is not JSON.");
    }
    if (root == null || !root.isArray() || root.isEmpty()) {
      throw CdcErrors.invalidOption(name, json, EXPECTED, null);
    }
    List<String> keys = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    for (JsonNode n : root) {
      if (!n.isTextual()) {
        throw CdcErrors.invalidOption(name, json, EXPECTED, "The entry " + n + " is not a string.");
      }
      String key = Identifiers.name("column", n.textValue());
      if (!seen.add(key.toLowerCase(Locale.ROOT))) {
        throw CdcErrors.invalidOption(name, json, EXPECTED, "The column '" + key + "' is listed twice.");
      }
      keys.add(key);
    }
    return List.copyOf(keys);
  }
}
