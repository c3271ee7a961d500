package io.mssqlcdc.connector.snapshot;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.mssqlcdc.client.KeyRange;
import io.mssqlcdc.errors.CdcErrors;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Parses {@code snapshotChunks} (reference-behaviour §3, §12.2): a JSON list
 * {@code [[chunk, lo, hi], ...]}. {@code chunk} is an integer, unique in the list; {@code lo}
 * (inclusive) and {@code hi} (exclusive) are {@code null} (open), a scalar for a single-column
 * key, or a list with one scalar per key column. Every bound given has the same number of
 * values. Scalars keep their JSON form here ({@code Long} or {@code BigDecimal} for numbers,
 * {@code String}, {@code Boolean}, {@code null}); {@link KeyValues} types them once the key
 * columns are known.
 *
 * <p>Parsed when the DataFrame is created, so bad JSON fails before any read.
 */
final class SnapshotChunks {
  /** Decimals stay exact: {@code 1.10} is a BigDecimal, not the double 1.1. */
  private static final JsonMapper JSON =
      JsonMapper.builder()
          .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
          .disable(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES)
          .build();

  private final String json;
  private final List<SnapshotChunk> chunks;
  /** Values per bound; 0 when every bound is open. */
  private final int arity;

  private SnapshotChunks(String json, List<SnapshotChunk> chunks, int arity) {
    this.json = json;
    this.chunks = List.copyOf(chunks);
    this.arity = arity;
  }

  /**
   * Parses {@code json}.
   *
   * @throws io.mssqlcdc.errors.CdcConfigException naming the option, the value and what is wrong
   */
  static SnapshotChunks parse(String json) {
    JsonNode root;
    try {
      root = JSON.readTree(json);
    } catch (Exception e) {
      throw CdcErrors.invalidSnapshotChunks(json, "it is not JSON");
    }
    if (root == null || !root.isArray()) {
      throw CdcErrors.invalidSnapshotChunks(json, "it is not a JSON list");
    }
    if (root.isEmpty()) {
      throw CdcErrors.invalidSnapshotChunks(json, "the list is empty; omit the option to read the whole table");
    }
    List<SnapshotChunk> chunks = new ArrayList<>();
    Set<Integer> seen = new HashSet<>();
    int arity = 0;
    for (int i = 0; i < root.size(); i++) {
      JsonNode entry = root.get(i);
      if (!entry.isArray() || entry.size() != 3) {
        throw CdcErrors.invalidSnapshotChunks(json, "entry " + i + " (" + entry + ") is not a list [chunk, lo, hi]");
      }
      JsonNode id = entry.get(0);
      if (!id.isIntegralNumber() || !id.canConvertToInt()) {
        throw CdcErrors.invalidSnapshotChunks(json, "entry " + i + " has chunk " + id + ", which is not an integer");
      }
      if (!seen.add(id.intValue())) {
        throw CdcErrors.invalidSnapshotChunks(json, "chunk " + id.intValue() + " is listed twice");
      }
      List<Object> lo = bound(json, i, "lo", entry.get(1));
      List<Object> hi = bound(json, i, "hi", entry.get(2));
      for (List<Object> b : Arrays.asList(lo, hi)) {
        if (b == null) {
          continue;
        }
        if (arity == 0) {
          arity = b.size();
        } else if (arity != b.size()) {
          throw CdcErrors.invalidSnapshotChunks(json, "entry " + i + " has a bound of " + b.size()
              + " value(s), others have " + arity + ": every bound needs one value per key column");
        }
      }
      chunks.add(new SnapshotChunk(id.intValue(), new KeyRange(lo, hi)));
    }
    return new SnapshotChunks(json, chunks, arity);
  }

  private static List<Object> bound(String json, int i, String which, JsonNode b) {
    if (b.isNull()) {
      return null;
    }
    List<Object> values = new ArrayList<>();
    if (b.isArray()) {
      if (b.isEmpty()) {
        throw CdcErrors.invalidSnapshotChunks(json, "entry " + i + " has an empty list as " + which
            + "; use null for an open end");
      }
      for (JsonNode v : b) {
        values.add(scalar(json, i, which, v));
      }
    } else {
      values.add(scalar(json, i, which, b));
    }
    return values;
  }

  private static Object scalar(String json, int i, String which, JsonNode v) {
    if (v.isNull()) {
      return null;
    }
    if (v.isIntegralNumber()) {
      return v.canConvertToLong() ? (Object) v.longValue() : new BigDecimal(v.bigIntegerValue());
    }
    if (v.isNumber()) {
      return v.decimalValue();
    }
    if (v.isTextual()) {
      return v.textValue();
    }
    if (v.isBoolean()) {
      return v.booleanValue();
    }
    throw CdcErrors.invalidSnapshotChunks(json, "entry " + i + " has " + v + " in " + which
        + ": bounds hold numbers, strings, booleans or null (other types as the text CAST reads back)");
  }

  List<SnapshotChunk> chunks() {
    return chunks;
  }

  /** Values per bound (the key columns the bounds need); 0 when every bound is open. */
  int arity() {
    return arity;
  }

  /** The option's value, for messages. */
  String json() {
    return json;
  }

  /** Whether every bound value of key column {@code column} is a JSON integer (or NULL). */
  boolean integerBounds(int column) {
    for (SnapshotChunk c : chunks) {
      for (List<Object> b : Arrays.asList(c.range().lo(), c.range().hi())) {
        if (b != null && b.get(column) != null && !(b.get(column) instanceof Long)) {
          return false;
        }
      }
    }
    return true;
  }

  /** Whether every bound is open (each chunk is the whole table). */
  boolean allOpen() {
    return arity == 0;
  }
}
