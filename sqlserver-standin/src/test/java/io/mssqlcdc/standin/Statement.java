package io.mssqlcdc.standin;

import io.mssqlcdc.client.TableQuery.Isolation;
import io.mssqlcdc.client.jdbc.CdcSql;
import io.mssqlcdc.client.jdbc.ServerClock;
import io.mssqlcdc.client.jdbc.SqlText;
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
  CHANGES(Pattern.compile(q("SELECT c.[__$start_lsn] AS _start_lsn, c.[__$seqval] AS _seqval,"
      + " c.[__$operation] AS _operation, ")
      + "(?<cmd>" + q("c.[__$command_id]") + "|0)" + q(" AS _command_id, ")
      + "(?:" + q("CONVERT(varchar(23), ") + "(?<utc>.+)" + q(", 126)") + "|" + q("CAST(NULL AS varchar(23))") + ")"
      + q(" AS _commit_ts") + "(?<cols>(?:, c\\." + Placeholders.ID + ")*)"
      + q(" FROM cdc.[") + "(?<ci>(?:[^\\]]|\\]\\])+?)" + q("_CT] c")
      + "(?<join>" + q(" JOIN cdc.lsn_time_mapping m ON m.start_lsn = c.[__$start_lsn]") + ")?" + q(
      " WHERE c.[__$start_lsn] BETWEEN CONVERT(binary(10), ?, 1) AND CONVERT(binary(10), ?, 1) ORDER BY c.[__$start_lsn]")
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
  HEALTH_CLOCK(exact(CdcSql.HEALTH_CLOCK)),
  CDC_JOBS(exact(CdcSql.CDC_JOBS)),
  LOG_SCAN(exact(CdcSql.LOG_SCAN)),
  CDC_ERRORS(exact(CdcSql.CDC_ERRORS)),
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
      + "(?<t>" + Placeholders.ID + "\\." + Placeholders.ID + ")(?<rest>(?: WHERE .+)?)")),
  /**
   * Q9: the last entry in an LSN range whose UTC time is at or before a time; group {@code utc} (a
   * {@link UtcExpression}); parameters from, to, those of {@code utc}, the time.
   */
  LAST_ENTRY_AT_OR_BEFORE(template(CdcSql.lastEntryAtOrBefore(SqlText.of(Placeholders.UTC), "0x00", "0x00", "t").sql(),
      Map.of(Placeholders.UTC, "utc:.+"))),
  /** Q9b: the first such entry; as {@link #LAST_ENTRY_AT_OR_BEFORE}. */
  FIRST_ENTRY_AT_OR_BEFORE(template(CdcSql.firstEntryAtOrBefore(SqlText.of(Placeholders.UTC), "0x00", "0x00", "t").sql(),
      Map.of(Placeholders.UTC, "utc:.+"))),
  /**
   * Q23: groups {@code o} (the ordinal: {@code CAST(<ik> AS bigint)} or the days since 1970 of
   * {@code <dk>}), {@code w}, {@code t}, {@code k} (the key tested for NULL) and {@code rest}
   * (" AND <range predicate>", or empty).
   */
  KEY_BUCKETS(Pattern.compile(q("SELECT [__$b] AS b, COUNT_BIG(*) AS n, SUM(CAST([__$o] AS decimal(38,0))) AS s FROM (SELECT ")
      + "(?<o>" + q("CAST(") + "(?<ik>" + Placeholders.ID + ")" + q(" AS bigint)") + "|"
      + q("CAST(DATEDIFF(day, CAST('19700101' AS date), ") + "(?<dk>" + Placeholders.ID + ")" + q(") AS bigint)") + ")"
      + q(" AS [__$o], CASE WHEN ") + "\\k<o>" + q(" >= 0 THEN ") + "\\k<o>" + q(" / CAST(") + "(?<w>\\d+)"
      + q(" AS bigint) ELSE (") + "\\k<o>" + q(" + 1) / CAST(") + "\\k<w>" + q(" AS bigint) - 1 END AS [__$b] FROM ")
      + "(?<t>" + Placeholders.ID + "\\." + Placeholders.ID + ")" + q(" WHERE ") + "(?<k>" + Placeholders.ID + ")"
      + q(" IS NOT NULL") + "(?<rest>(?: AND .+)?)" + q(") x GROUP BY [__$b] ORDER BY [__$b]"))),
  /** Q23 without a key: group {@code t}. */
  COUNT_ROWS(Pattern.compile(q("SELECT COUNT_BIG(*) FROM ") + "(?<t>" + Placeholders.ID + "\\." + Placeholders.ID + ")")),
  /** Q25: parameter the table ({@code [schema].[table]}). */
  ROW_ESTIMATE(exact(CdcSql.ROW_ESTIMATE)),
  /** Q26: groups {@code k} (the quoted key list), {@code t}, {@code d} (the ORDER BY list, each with DESC). */
  KEY_MAX(Pattern.compile(q("SELECT TOP (1) ") + "(?<k>" + Placeholders.ID + "(?:, " + Placeholders.ID + ")*)" + q(" FROM ")
      + "(?<t>" + Placeholders.ID + "\\." + Placeholders.ID + ")" + q(" ORDER BY ")
      + "(?<d>" + Placeholders.ID + " DESC(?:, " + Placeholders.ID + " DESC)*)")),
  /**
   * Q27: groups {@code k} (the quoted key list), {@code parts} (the {@link #KEY_BOUND_PART}s joined
   * by " UNION ALL "), {@code n} (the OFFSET, cast to bigint) or {@code bareN} (a bare literal).
   */
  KEY_BOUND(Pattern.compile(q("SELECT ") + "(?<k>" + Placeholders.ID + "(?:, " + Placeholders.ID + ")*)" + q(" FROM (")
      + "(?<parts>" + q("SELECT * FROM (SELECT TOP (") + ".+)" + q(") u ORDER BY ") + "\\k<k>" + q(" OFFSET ")
      + "(?:CAST\\((?<n>\\d+) AS bigint\\)|(?<bareN>\\d+))" + q(" ROWS FETCH NEXT 1 ROWS ONLY")));

  /**
   * One part of {@link #KEY_BOUND}: groups {@code top} (cast to bigint) or {@code bareTop}, {@code k}, {@code t}, {@code w} (a piece's
   * predicate, or absent) and the ORDER BY list {@code o}.
   */
  static final Pattern KEY_BOUND_PART = Pattern.compile(q("SELECT * FROM (SELECT TOP (")
      + "(?:CAST\\((?<top>\\d+) AS bigint\\)|(?<bareTop>\\d+))" + q(") ")
      + "(?<k>" + Placeholders.ID + "(?:, " + Placeholders.ID + ")*)" + q(" FROM ")
      + "(?<t>" + Placeholders.ID + "\\." + Placeholders.ID + ")(?: WHERE (?<w>.+))?" + q(" ORDER BY ")
      + "(?<o>" + Placeholders.ID + "(?:, " + Placeholders.ID + ")*)" + q(") p"));

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
    /** Stands for a UTC expression in a built text; appears nowhere else. */
    static final String UTC = "STANDIN_PLACEHOLDER_UTC";
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
