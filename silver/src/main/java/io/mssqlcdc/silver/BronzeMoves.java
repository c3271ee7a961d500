package io.mssqlcdc.silver;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Whether bronze has a newer version than at a target's last call in this JVM: a hint that the call will likely
 * MERGE (the stream commits bronze only with rows), used to start work ahead ({@code StateWarmup}). Only a hint: a
 * wrong answer costs a warm-up that was not needed, or one that was not started; nothing depends on it. Not
 * persisted: a JVM's first call for a target says yes.
 */
final class BronzeMoves {
  private static final Map<String, Long> SEEN = new ConcurrentHashMap<>();

  private BronzeMoves() {}

  /** Whether {@code bronzeVersion} is newer than at {@code target}'s last call from {@code bronze}; records it. */
  static boolean since(String target, String bronze, long bronzeVersion) {
    Long before = SEEN.put(target + "\u0000" + bronze, bronzeVersion);
    return before == null || bronzeVersion > before;
  }
}
