package io.mssqlcdc.sink.pipeline;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.mssqlcdc.errors.SinkErrors;
import io.mssqlcdc.lsn.Lsn;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The stream's checkpoint generation (docs/decisions/0006-generation-state.md, reference-behaviour
 * §10.2): {@code <checkpoint>/_mssql_cdc_generation.json}, absent in generation 0. Generation n
 * runs in {@code <checkpoint>/_generations/<n>} under the sink id {@code <app_id>.g<n>}, starting
 * at its snapshot's LSN. While a recovery is open the file also holds {@code recovering} (the
 * offset the loss was found after) and, after a failed attempt, {@code failed_at}.
 *
 * <p>The format is the Python reference's, byte for byte: its {@code json.dump} defaults
 * ({@code ", "} and {@code ": "} separators), keys in the order {@code generation, snapshot_lsn,
 * commit_ts, at}, then {@code recovering} and {@code failed_at}; times as UTC ISO-8601 seconds
 * with an explicit {@code +00:00}:
 * <pre>{"generation": 1, "snapshot_lsn": "0x0000002A000001000081", "commit_ts": "2026-09-28T13:58:00.000", "at": "2026-10-05T15:15:54+00:00"}</pre>
 * Keys this release does not know are kept when the file is rewritten.
 *
 * @param generation the live generation
 * @param snapshotLsn the LSN the generation's stream started at (its snapshot's); null in 0
 * @param commitTs that LSN's commit time as the file holds it ({@code ""} when unknown); null in 0
 * @param at when the generation opened; null in 0
 * @param recovering the offset an open recovery found the loss after
 * @param failedAt when the last failed attempt started
 * @param extra keys of a newer release, kept as they are
 */
public record GenerationState(
    int generation, Lsn snapshotLsn, String commitTs, Instant at, StartOffset recovering, Instant failedAt,
    Map<String, JsonNode> extra) {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final DateTimeFormatter SECONDS = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ssxxx");

  /** Generation 0, no recovery open. */
  public static final GenerationState INITIAL = new GenerationState(0, null, null, null, null, null, Map.of());

  /**
   * An offset as the state file holds it: {@code {"lsn": ..., "commit_ts": ...}}, commit time
   * {@code ""} when unknown (an explicit {@code startingLsn}).
   */
  public record StartOffset(Lsn lsn, String commitTs) {
    public Optional<Instant> commitInstant() {
      return GenerationState.parseCommitTs(commitTs);
    }
  }

  public GenerationState {
    extra = extra == null ? Map.of() : Map.copyOf(extra);
  }

  /** A new generation's state: exactly {@code generation, snapshot_lsn, commit_ts, at}. */
  public static GenerationState opened(int generation, Lsn snapshotLsn, String commitTs, Instant at) {
    return new GenerationState(generation, snapshotLsn, commitTs == null ? "" : commitTs,
        at.truncatedTo(ChronoUnit.SECONDS), null, null, Map.of());
  }

  /** This state with a recovery open after {@code start}. */
  public GenerationState recovering(StartOffset start) {
    return new GenerationState(generation, snapshotLsn, commitTs, at, start, failedAt, extra);
  }

  /** This state after an attempt started at {@code attemptAt} failed. */
  public GenerationState failed(StartOffset start, Instant attemptAt) {
    return new GenerationState(generation, snapshotLsn, commitTs, at, start, attemptAt.truncatedTo(ChronoUnit.SECONDS),
        extra);
  }

  /** Parses the file's text; {@code file} names it in errors. */
  public static GenerationState parse(String text, String file) {
    JsonNode n;
    try {
      n = JSON.readTree(text);
    } catch (Exception e) {
      throw SinkErrors.generationStateUnreadable(file, "not JSON (" + e.getMessage() + ")");
    }
    if (n == null || !n.isObject() || !n.path("generation").canConvertToInt()) {
      throw SinkErrors.generationStateUnreadable(file, "no integer 'generation'");
    }
    int g = n.get("generation").asInt();
    if (g < 0) {
      throw SinkErrors.generationStateUnreadable(file, "generation " + g + " is negative");
    }
    try {
      Lsn lsn = text(n, "snapshot_lsn") == null ? null : Lsn.parse(text(n, "snapshot_lsn"));
      if (g > 0 && lsn == null) {
        throw SinkErrors.generationStateUnreadable(file, "generation " + g + " has no 'snapshot_lsn'");
      }
      StartOffset recovering = null;
      JsonNode r = n.get("recovering");
      if (r != null && r.isObject() && text(r, "lsn") != null) {
        recovering = new StartOffset(Lsn.parse(text(r, "lsn")), r.path("commit_ts").asText(""));
      }
      Map<String, JsonNode> extra = new LinkedHashMap<>();
      for (Iterator<String> it = n.fieldNames(); it.hasNext(); ) {
        String k = it.next();
        if (!java.util.Set.of("generation", "snapshot_lsn", "commit_ts", "at", "recovering", "failed_at").contains(k)) {
          extra.put(k, n.get(k));
        }
      }
      return new GenerationState(g, lsn, text(n, "commit_ts"), instant(text(n, "at")), recovering,
          instant(text(n, "failed_at")), extra);
    } catch (RuntimeException e) {
      if (e instanceof io.mssqlcdc.errors.CdcError) {
        throw SinkErrors.generationStateUnreadable(file, e.getMessage());
      }
      throw SinkErrors.generationStateUnreadable(file, String.valueOf(e.getMessage()));
    }
  }

  /** The file's text, in the reference's format. */
  public String toJson() {
    StringBuilder sb = new StringBuilder("{");
    field(sb, "generation", Integer.toString(generation));
    if (snapshotLsn != null) {
      field(sb, "snapshot_lsn", quote(snapshotLsn.hex()));
      field(sb, "commit_ts", quote(commitTs == null ? "" : commitTs));
      field(sb, "at", at == null ? "null" : quote(SECONDS.format(at.atOffset(ZoneOffset.UTC))));
    }
    for (Map.Entry<String, JsonNode> e : extra.entrySet()) {
      field(sb, e.getKey(), e.getValue().toString());
    }
    if (recovering != null) {
      field(sb, "recovering", "{\"lsn\": " + quote(recovering.lsn().hex()) + ", \"commit_ts\": "
          + quote(recovering.commitTs() == null ? "" : recovering.commitTs()) + "}");
    }
    if (failedAt != null) {
      field(sb, "failed_at", quote(SECONDS.format(failedAt.atOffset(ZoneOffset.UTC))));
    }
    return sb.append('}').toString();
  }

  /** The time the anti-loop test counts from: the last failed attempt, else (generation > 0) the last opening. */
  public Optional<Instant> lastAttempt() {
    if (failedAt != null) {
      return Optional.of(failedAt);
    }
    return generation > 0 ? Optional.ofNullable(at) : Optional.empty();
  }

  static Optional<Instant> parseCommitTs(String commitTs) {
    if (commitTs == null || commitTs.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(java.time.LocalDateTime.parse(commitTs).toInstant(ZoneOffset.UTC));
  }

  private static void field(StringBuilder sb, String key, String rawValue) {
    if (sb.length() > 1) {
      sb.append(", ");
    }
    sb.append(quote(key)).append(": ").append(rawValue);
  }

  private static String quote(String s) {
    try {
      return JSON.writeValueAsString(s);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static String text(JsonNode n, String key) {
    JsonNode v = n.get(key);
    return v == null || v.isNull() ? null : v.asText();
  }

  private static Instant instant(String s) {
    if (s == null || s.isEmpty()) {
      return null;
    }
    try {
      return OffsetDateTime.parse(s).toInstant();
    } catch (java.time.format.DateTimeParseException e) {
      // A naive time (no offset) is UTC.
      return java.time.LocalDateTime.parse(s).toInstant(ZoneOffset.UTC);
    }
  }
}
