package io.mssqlcdc.fake;

import io.mssqlcdc.fake.Catalog.MappingEntry;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.zone.ZoneRules;
import java.util.ArrayList;
import java.util.List;

/**
 * The UTC commit times of one catalog's {@code cdc.lsn_time_mapping}, converted exactly as
 * {@code SqlCdcClient} converts them on SQL Server (reference §9, ADR 0008), so both clients
 * return the same instants for the same history:
 *
 * <ul>
 *   <li>the offset of a local time is SQL Server's {@code AT TIME ZONE}'s: in a fall-back overlap
 *       the offset before the change (daylight time); a time in a spring-forward gap is moved
 *       forward by the gap and takes the offset after (02:30 in New York's gap is 03:30 EDT), the
 *       same instant as the time with the offset before the change;
 *   <li>plain conversion: {@code t - offset(t)};
 *   <li>fall-back correction: a <em>drop</em> is an entry whose time is more than
 *       {@value #DROP_MINUTES} minute before its predecessor's (in LSN order) at a repeated time; an
 *       entry at a repeated time with a drop at or before it (in LSN order) no more than
 *       {@value #WINDOW_HOURS} hours earlier (local time) is the hour's second pass and converts with
 *       the offset in force {@value #WINDOW_HOURS} hours later (standard time).
 *   <li>"repeated time": {@code offset(t+3h) < offset(t)} and
 *       {@code offset(t + (offset(t) - offset(t+3h)) minutes) = offset(t+3h)}.
 * </ul>
 *
 * <p>SQL Server looks for drops from 3 hours before a read's first commit; this class over the
 * whole mapping, which finds the same drops for every entry of a read (a drop is at a repeated
 * time, so no drop can precede that window and still lie within 3 hours of an entry in it).
 * Immutable once built; built per catalog version and zone.
 */
final class CommitTimes {
  /** A commit more than this many minutes before its predecessor is a drop (clock set back). */
  static final int DROP_MINUTES = 1;
  /** How far back a drop is looked for, and how far ahead the standard offset is read. */
  static final int WINDOW_HOURS = 3;

  private final List<MappingEntry> mapping;
  private final ZoneRules rules;
  /** Indexes of the drops in {@link #mapping}, ascending; null for zones without transitions. */
  private final int[] drops;

  CommitTimes(List<MappingEntry> mapping, ZoneId zone) {
    this.mapping = mapping;
    this.rules = zone.getRules();
    this.drops = rules.isFixedOffset() ? null : findDrops();
  }

  private int[] findDrops() {
    List<Integer> found = new ArrayList<>();
    for (int i = 1; i < mapping.size(); i++) {
      LocalDateTime t = mapping.get(i).tranEndTime();
      if (t.isBefore(mapping.get(i - 1).tranEndTime().minusMinutes(DROP_MINUTES)) && repeated(t)) {
        found.add(i);
      }
    }
    return found.stream().mapToInt(Integer::intValue).toArray();
  }

  /** The UTC commit time of mapping entry {@code index}. */
  Instant utc(int index) {
    LocalDateTime t = mapping.get(index).tranEndTime();
    if (drops == null) {
      return t.toInstant(rules.getOffset(Instant.EPOCH));
    }
    if (drops.length > 0 && repeated(t) && dropBefore(index, t)) {
      return t.toInstant(offset(t.plusHours(WINDOW_HOURS)));
    }
    return t.toInstant(offset(t));
  }

  /** Whether a drop at or before {@code index} (LSN order) lies no more than 3 hours before {@code t}. */
  private boolean dropBefore(int index, LocalDateTime t) {
    LocalDateTime from = t.minusHours(WINDOW_HOURS);
    for (int k = drops.length - 1; k >= 0; k--) {
      int d = drops[k];
      if (d <= index && !mapping.get(d).tranEndTime().isBefore(from)) {
        return true;
      }
    }
    return false;
  }

  /** Whether the local time {@code t} is one a fall-back repeats (the SQL test of reference §9). */
  private boolean repeated(LocalDateTime t) {
    int now = minutes(offset(t));
    int later = minutes(offset(t.plusHours(WINDOW_HOURS)));
    return later < now && minutes(offset(t.plusMinutes(now - later))) == later;
  }

  /**
   * The offset that converts local time {@code t} to SQL Server's instant: the earlier one in an
   * overlap; in a gap the one before it, as {@code AT TIME ZONE} moves a gap time forward by the
   * gap with the offset after (the same instant).
   */
  private ZoneOffset offset(LocalDateTime t) {
    List<ZoneOffset> valid = rules.getValidOffsets(t);
    if (!valid.isEmpty()) {
      return valid.get(0);
    }
    return rules.getTransition(t).getOffsetBefore();
  }

  private static int minutes(ZoneOffset o) {
    return o.getTotalSeconds() / 60;
  }
}
