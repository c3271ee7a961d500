package io.mssqlcdc.lab;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

/** Weights of the stream's operations ({@code insert=50,update=40,delete=10}); picks one per transaction. */
record Mix(int insert, int update, int delete) {
  enum Op { INSERT, UPDATE, DELETE }

  Mix {
    if (insert < 0 || update < 0 || delete < 0 || insert + update + delete == 0) {
      throw new IllegalArgumentException("Option '--mix' needs non-negative weights with a positive sum, not insert="
          + insert + ",update=" + update + ",delete=" + delete + ".");
    }
  }

  static Mix parse(String text) {
    Map<String, Integer> w = new LinkedHashMap<>(Map.of("insert", 0, "update", 0, "delete", 0));
    for (String part : text.split(",")) {
      String[] kv = part.split("=", 2);
      String key = kv[0].strip().toLowerCase(Locale.ROOT);
      if (kv.length != 2 || !w.containsKey(key)) {
        throw new IllegalArgumentException("Option '--mix' must look like insert=50,update=40,delete=10, not '" + text + "'.");
      }
      try {
        w.put(key, Integer.parseInt(kv[1].strip()));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("Option '--mix': weight of " + key + " must be an integer, not '" + kv[1] + "'.");
      }
    }
    return new Mix(w.get("insert"), w.get("update"), w.get("delete"));
  }

  /** The next operation; deterministic for a given {@link Random} state. */
  Op pick(Random random) {
    int r = random.nextInt(insert + update + delete);
    return r < insert ? Op.INSERT : r < insert + update ? Op.UPDATE : Op.DELETE;
  }
}
