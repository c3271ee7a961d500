package io.mssqlcdc.connector;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mssqlcdc.errors.CdcConfigException;
import io.mssqlcdc.errors.CdcErrors;
import io.mssqlcdc.lsn.Lsn;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.Objects;
import java.util.Optional;
import org.apache.spark.sql.connector.read.streaming.Offset;

/**
 * The streaming offset: the last <em>processed</em> commit LSN and its UTC commit time. The next
 * micro-batch starts at {@code fn_cdc_increment_lsn(lsn)}: the offset is inclusive of what was
 * read, like a "last fully included commit" watermark.
 *
 * <p>JSON (docs/decisions/0001-offset-format.md), written in this key order:
 * <pre>{"lsn": "0x0000002A000001F00003", "commit_ts": "2026-09-28T14:03:12.117", "v": 1, "source": "dbo.orders",
 *  "capture_instance": "dbo_orders"}</pre>
 * <ul>
 *   <li>{@code lsn}: {@code 0x} + 20 uppercase hex digits;
 *   <li>{@code commit_ts}: UTC, ISO-8601 with exactly milliseconds, or {@code ""} when the LSN is
 *       no commit's (a decremented LSN, an explicit {@code startingLsn});
 *   <li>{@code v}: format version, absent in offsets of the Python reference (read as 1);
 *   <li>{@code source}: {@code schema.table} (lower case) the checkpoint follows; absent in the
 *       reference's offsets (then not checked);
 *   <li>{@code capture_instance}: the {@code captureInstance} option of the query that wrote it
 *       (docs/decisions/0007-offset-capture-instance.md): a table renamed since (other
 *       {@code source}) still resumes when this names the same capture instance; absent in the
 *       reference's offsets and in offsets written before it was added.
 * </ul>
 * The Python reference's offsets ({@code {"lsn": ..., "commit_ts": ...}}) read exactly, so a
 * checkpoint it wrote resumes here.
 */
public final class CdcOffset extends Offset implements Comparable<CdcOffset> {
  /** The newest format version this release writes and reads. */
  public static final int VERSION = 1;

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final DateTimeFormatter MILLIS = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS");

  private final Lsn lsn;
  private final Instant commitTs;
  private final String source;
  private final String captureInstance;

  private CdcOffset(Lsn lsn, Instant commitTs, String source, String captureInstance) {
    this.lsn = Objects.requireNonNull(lsn, "lsn");
    this.commitTs = commitTs == null ? null : commitTs.truncatedTo(ChronoUnit.MILLIS);
    this.source = source;
    this.captureInstance = captureInstance;
  }

  /** An offset at {@code lsn}, committed at {@code commitTs} (UTC; null when unknown). */
  public static CdcOffset of(Lsn lsn, Instant commitTs, String source) {
    return new CdcOffset(lsn, commitTs, source, null);
  }

  /**
   * An offset at {@code lsn}, committed at {@code commitTs} (UTC; null when unknown), of a query
   * reading table {@code source} through capture instance option {@code captureInstance}.
   */
  public static CdcOffset of(Lsn lsn, Instant commitTs, String source, String captureInstance) {
    return new CdcOffset(lsn, commitTs, source, captureInstance);
  }

  public Lsn lsn() {
    return lsn;
  }

  /** UTC commit time of {@link #lsn()}, milliseconds; empty when the LSN is no commit's. */
  public Optional<Instant> commitTs() {
    return Optional.ofNullable(commitTs);
  }

  /** {@code schema.table} of the source, lower case; empty in offsets of the Python reference. */
  public Optional<String> source() {
    return Optional.ofNullable(source);
  }

  /** The {@code captureInstance} option of the query that wrote it; empty in older offsets. */
  public Optional<String> captureInstance() {
    return Optional.ofNullable(captureInstance);
  }

  /** {@code commit_ts} as the JSON holds it: ISO-8601 UTC with milliseconds, or "". */
  public String commitTsText() {
    return commitTs == null ? "" : MILLIS.format(LocalDateTime.ofInstant(commitTs, ZoneOffset.UTC));
  }

  @Override
  public String json() {
    ObjectNode n = JSON.createObjectNode();
    n.put("lsn", lsn.toString());
    n.put("commit_ts", commitTsText());
    n.put("v", VERSION);
    if (source != null) {
      n.put("source", source);
    }
    if (captureInstance != null) {
      n.put("capture_instance", captureInstance);
    }
    return n.toString();
  }

  /**
   * Reads an offset from the checkpoint: this release's format or the Python reference's.
   *
   * @throws io.mssqlcdc.errors.CdcStateException naming the JSON and what is wrong, or when the
   *     format version is newer than this release reads
   */
  public static CdcOffset fromJson(String json) {
    JsonNode n;
    try {
      n = JSON.readTree(json);
    } catch (Exception e) {
      throw CdcErrors.invalidOffset(json, "it is not JSON");
    }
    if (n == null || !n.isObject()) {
      throw CdcErrors.invalidOffset(json, "it is not a JSON object");
    }
    if (n.has("v")) {
      JsonNode v = n.get("v");
      if (!v.canConvertToInt()) {
        throw CdcErrors.invalidOffset(json, "'v' is not a format version number");
      }
      if (v.asInt() > VERSION) {
        throw CdcErrors.offsetVersionTooNew(v.asInt(), VERSION);
      }
    }
    JsonNode lsnNode = n.get("lsn");
    if (lsnNode == null || !lsnNode.isTextual()) {
      throw CdcErrors.invalidOffset(json, "'lsn' is missing or not a string");
    }
    Lsn lsn;
    try {
      lsn = Lsn.parse(lsnNode.asText());
    } catch (CdcConfigException e) {
      throw CdcErrors.invalidOffset(json, "'lsn' is not an LSN");
    }
    JsonNode ts = n.get("commit_ts");
    Instant commitTs = null;
    if (ts != null && !ts.isNull()) {
      if (!ts.isTextual()) {
        throw CdcErrors.invalidOffset(json, "'commit_ts' is not a string");
      }
      commitTs = parseCommitTs(json, ts.asText());
    }
    JsonNode src = n.get("source");
    String source = src == null || src.isNull() ? null : src.asText();
    JsonNode ci = n.get("capture_instance");
    String captureInstance = ci == null || ci.isNull() ? null : ci.asText();
    return new CdcOffset(lsn, commitTs, source, captureInstance);
  }

  private static Instant parseCommitTs(String json, String text) {
    String t = text.strip();
    if (t.isEmpty()) {
      return null;
    }
    try {
      if (t.endsWith("Z") || t.matches(".*[+-]\\d\\d:\\d\\d$")) {
        return java.time.OffsetDateTime.parse(t).toInstant();
      }
      return LocalDateTime.parse(t).toInstant(ZoneOffset.UTC);
    } catch (DateTimeParseException e) {
      throw CdcErrors.invalidOffset(json, "'commit_ts' is not an ISO-8601 time");
    }
  }

  /**
   * Checks that {@code next} does not move back from {@code previous}. (Their sources may differ:
   * a renamed table; the stream checks the checkpoint's identity against the table it reads.)
   *
   * @throws io.mssqlcdc.errors.CdcStateException with both offsets in the message
   */
  public static void checkForward(CdcOffset previous, CdcOffset next) {
    if (next.lsn.isBefore(previous.lsn)) {
      throw CdcErrors.offsetMovedBackwards(previous.json(), next.json());
    }
  }

  /** Whether this offset names no source, or {@code configuredSource} (ignoring case). */
  public boolean isOfSource(String configuredSource) {
    return source == null || configuredSource == null || source.equalsIgnoreCase(configuredSource);
  }

  /**
   * Checks the checkpoint's offset follows {@code configuredSource} (when it names a source),
   * strictly: a renamed table fails here (the stream allows it when {@link #captureInstance()}
   * matches).
   */
  public CdcOffset checkSource(String configuredSource) {
    if (source != null && configuredSource != null && !source.equalsIgnoreCase(configuredSource)) {
      throw CdcErrors.offsetOfAnotherSource(source, configuredSource);
    }
    return this;
  }

  @Override
  public int compareTo(CdcOffset o) {
    return lsn.compareTo(o.lsn);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof CdcOffset other
        && lsn.equals(other.lsn)
        && Objects.equals(commitTs, other.commitTs)
        && Objects.equals(source, other.source)
        && Objects.equals(captureInstance, other.captureInstance);
  }

  @Override
  public int hashCode() {
    return Objects.hash(lsn, commitTs, source, captureInstance);
  }

  @Override
  public String toString() {
    return json();
  }
}
