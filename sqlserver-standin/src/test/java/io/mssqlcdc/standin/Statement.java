package io.mssqlcdc.standin;

import io.mssqlcdc.client.TableQuery.Isolation;
import io.mssqlcdc.client.jdbc.CdcSql;
import io.mssqlcdc.client.jdbc.ServerClock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Every statement {@code SqlCdcClient} sends ({@link CdcSql}, Q1..Q29), each recognised here and
 * nowhere else: fixed texts by equality, built texts by a pattern derived from {@link CdcSql}'s
 * own builder (placeholders in the built text become capture groups) or, for texts with column
 * lists and predicates, by a pattern written out. {@link #recognise} finds exactly one kind for a
 * text or none; the stand-in answers none with an error and records it, so an unknown statement
 * fails the test that sent it.
 */
public enum Statement {
  VERSION_PROBE(exact(CdcSql.VERSION_PROBE)),
  ZONE_NAME(exact(CdcSql.ZONE_NAME)),
  FIXED_OFFSET(exact(CdcSql.FIXED_OFFSET)),
  MAX_LSN(exact(CdcSql.MAX_LSN)),
  MIN_LSN(exact(CdcSql.MIN_LSN)),
  INCREMENT_LSN(exact(CdcSql.INCREMENT_LSN)),
  DECREMENT_LSN(exact(CdcSql.DECREMENT_LSN)),
  ENTRY_AT_OR_BEFORE(exact(CdcSql.ENTRY_AT_OR_BEFORE)),
  /** Q8: the commit time of an entry; group {@code utc} is a {@link UtcExpression}. */
  COMMIT_TIME(Pattern.compile(q("SELECT TOP (1) CONVERT(varchar(23), ") + "(?<utc>.+)"
      + q(", 126) FROM cdc.lsn_time_mapping m WHERE m.start_lsn = CONVERT(binary(10), ?, 1) ORDER BY m.start_lsn DESC"))),
  /** Q10: group {@code n}. */
  NTH_COMMIT_AFTER(template(CdcSql.nthCommitAfter(987654321), Map.of("987654321", "n:\\d+"))),
  /** Q10b: group {@code n} (the {@code TOP} limit); parameters after, upTo. */
  COMMITS_BETWEEN(template(CdcSql.commitsBetween(987654321), Map.of("987654321", "n:\\d+"))),
  /** Q13: group {@code zone}. */
  RANGE_OFFSET(template(CdcSql.rangeOffset(ServerClock.parse(Placeholders.ZONE)), Map.of(Placeholders.ZONE, "zone:[^']+"))),
  /** Q14: group {@code zone}. */
  DROPS(template(CdcSql.drops(ServerClock.parse(Placeholders.ZONE)), Map.of(Placeholders.ZONE, "zone:[^']+"))),
  /** Q11: groups {@code ci} (inside {@code cdc.[<ci>_CT]}, brackets doubled) and {@code n}. */
  SPLIT_POINTS(template(CdcSql.splitPoints(Placeholders.CI, 987654321),
      Map.of(Placeholders.CI, "ci:(?:[^\\]]|\\]\\])+?", "987654321", "n:\\d+"))),
  /**
   * Q12: groups {@code cmd} ({@code c.[__$command_id]} or {@code 0}), {@code utc}, {@code cols}
   * (", c.[a], c.[b]"), {@code ci} and {@code order} (the command id in ORDER BY, or empty).
   */
  CHANGES(Pattern.compile(q("SELECT CONVERT(varchar(22), c.[__$start_lsn], 1) AS _start_lsn,"
      + " CONVERT(varchar(22), c.[__$seqval], 1) AS _seqval, c.[__$operation] AS _operation, ")
      + "(?<cmd>" + q("c.[__$command_id]") + "|0)" + q(" AS _command_id, CONVERT(varchar(23), ") + "(?<utc>.+)"
      + q(", 126) AS _commit_ts") + "(?<cols>(?:, c\\." + Placeholders.ID + ")*)"
      + q(" FROM cdc.[") + "(?<ci>(?:[^\\]]|\\]\\])+?)" + q("_CT] c JOIN cdc.lsn_time_mapping m ON m.start_lsn = c.[__$start_lsn]"
      + " WHERE c.[__$start_lsn] BETWEEN CONVERT(binary(10), ?, 1) AND CONVERT(binary(10), ?, 1) ORDER BY c.[__$start_lsn]")
      + "(?<order>" + q(", c.[__$command_id]") + ")?" + q(", c.[__$seqval], c.[__$operation]"))),
  PERMISSION_PROBE(exact(CdcSql.PERMISSION_PROBE)),
  /** Q29: parameter {@code cdc.[<ci>_CT]}. */
  COMMAND_ID_PROBE(exact(CdcSql.COMMAND_ID_PROBE)),
  CAPTURED_COLUMNS(exact(CdcSql.CAPTURED_COLUMNS)),
  DDL_HISTORY(exact(CdcSql.DDL_HISTORY)),
  HELP_ALL(exact(CdcSql.HELP_ALL)),
  HELP_TABLE(exact(CdcSql.HELP_TABLE)),
  TABLE_COLUMNS(exact(CdcSql.TABLE_COLUMNS)),
  PING(exact(CdcSql.PING)),
  NETWORK_WAIT(exact(CdcSql.NETWORK_WAIT)),
  CDC_ENABLED(exact(CdcSql.CDC_ENABLED)),
  CAPTURE_AGE_SECONDS(exact(CdcSql.CAPTURE_AGE_SECONDS)),
  /** The session prefix of source reads: groups {@code ms}; the isolation is the pattern's. */
  SESSION_PREFIX(
      template(CdcSql.sessionPrefix(Isolation.READ_COMMITTED, 987654321), Map.of("987654321", "ms:-?\\d+")),
      template(CdcSql.sessionPrefix(Isolation.SNAPSHOT, 987654321), Map.of("987654321", "ms:-?\\d+"))),
  /** Q21: groups {@code k}, {@code t}, {@code w1}, {@code w2} (each " WHERE ..." or absent). */
  KEY_MIN_MAX(Pattern.compile(q("SELECT (SELECT MIN(") + "(?<k>" + Placeholders.ID + ")" + q(") FROM ")
      + "(?<t>" + Placeholders.ID + "\\." + Placeholders.ID + ")(?<w1> WHERE .+?)?" + q(") AS lo, (SELECT MAX(")
      + "\\k<k>" + q(") FROM ") + "\\k<t>(?<w2> WHERE .+?)?" + q(") AS hi"))),
  /** Q22: groups {@code k} (the quoted key list), {@code n}, {@code t}. */
  KEY_TILES(Pattern.compile(q("SELECT ") + "(?<k>" + Placeholders.ID + "(?:, " + Placeholders.ID + ")*)"
      + q(" FROM (SELECT ") + "\\k<k>" + q(", [__$tile], LAG([__$tile]) OVER (ORDER BY ") + "\\k<k>"
      + q(") AS [__$prev] FROM (SELECT ") + "\\k<k>" + q(", NTILE(") + "(?<n>\\d+)" + q(") OVER (ORDER BY ") + "\\k<k>"
      + q(") AS [__$tile] FROM ") + "(?<t>" + Placeholders.ID + "\\." + Placeholders.ID + ")"
      + q(") a) b WHERE [__$tile] <> [__$prev] ORDER BY [__$tile]"))),
  /** Q24: groups {@code c} (the quoted column list), {@code t}, {@code rest} (" WHERE p1 UNION ALL SELECT ... WHERE p2", or empty). */
  READ_TABLE(Pattern.compile(q("SELECT ") + "(?<c>" + Placeholders.ID + "(?:, " + Placeholders.ID + ")*)" + q(" FROM ")
      + "(?<t>" + Placeholders.ID + "\\." + Placeholders.ID + ")(?<rest>(?: WHERE .+)?)"));

  private final List<Pattern> patterns;

  Statement(Pattern... patterns) {
    this.patterns = List.of(patterns);
  }

  /** A recognised statement: its kind, the match of its pattern, and which of the kind's patterns matched. */
  public record Recognised(Statement kind, Matcher match, int variant) {}

  /**
   * The one kind {@code sql} (with {@code ?} marks) is, or empty.
   *
   * @throws IllegalStateException when two kinds match: each shape must be recognised in one place
   */
  public static Optional<Recognised> recognise(String sql) {
    List<Recognised> found = new ArrayList<>();
    for (Statement s : values()) {
      for (int i = 0; i < s.patterns.size(); i++) {
        Matcher m = s.patterns.get(i).matcher(sql);
        if (m.matches()) {
          found.add(new Recognised(s, m, i));
          break;
        }
      }
    }
    if (found.size() > 1) {
      throw new IllegalStateException("Statement shapes " + found.stream().map(r -> r.kind().name()).toList()
          + " all match, but each shape must be recognised in one place: " + sql);
    }
    return found.stream().findFirst();
  }

  // ---- pattern building ----

  /** Values that make {@link CdcSql}'s builders produce recognisable text. */
  static final class Placeholders {
    /** A valid zone name (for ServerClock.parse) that appears nowhere else. */
    static final String ZONE = "Standin Placeholder Zone";
    /** A valid capture instance name that appears nowhere else. */
    static final String CI = "standin_placeholder_ci";
    /** A bracket-quoted identifier, closing brackets doubled. */
    static final String ID = "\\[(?:[^\\]]|\\]\\])+\\]";

    private Placeholders() {}
  }

  private static String q(String literal) {
    return Pattern.quote(literal);
  }

  private static Pattern exact(String sql) {
    return Pattern.compile(q(sql));
  }

  /**
   * The pattern of {@code text} (a builder's output) with each placeholder replaced by a group:
   * {@code "name:regex"}, named at its first occurrence, a back-reference at later ones.
   */
  static Pattern template(String text, Map<String, String> groups) {
    StringBuilder p = new StringBuilder();
    java.util.Set<String> seen = new java.util.HashSet<>();
    int i = 0;
    while (i < text.length()) {
      String hit = null;
      int at = text.length();
      for (String placeholder : groups.keySet()) {
        int k = text.indexOf(placeholder, i);
        if (k >= 0 && k < at) {
          at = k;
          hit = placeholder;
        }
      }
      p.append(at > i ? q(text.substring(i, at)) : "");
      if (hit == null) {
        break;
      }
      String[] spec = groups.get(hit).split(":", 2);
      p.append(seen.add(spec[0]) ? "(?<" + spec[0] + ">" + spec[1] + ")" : "\\k<" + spec[0] + ">");
      i = at + hit.length();
    }
    return Pattern.compile(p.toString());
  }
}
