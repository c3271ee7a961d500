package io.mssqlcdc.client.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.client.CaptureInstance;
import io.mssqlcdc.client.CapturedColumn;
import io.mssqlcdc.client.CdcClient;
import io.mssqlcdc.client.ChangeCursor;
import io.mssqlcdc.client.ChangeQuery;
import io.mssqlcdc.client.KeyBucket;
import io.mssqlcdc.client.KeyRange;
import io.mssqlcdc.client.SplitPoint;
import io.mssqlcdc.client.TableRef;
import io.mssqlcdc.client.contract.ContractHistory.RowOp;
import io.mssqlcdc.errors.CdcConfigException;
import io.mssqlcdc.lsn.Lsn;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every {@link CdcClient} must have, run against the fake (unit tests) and
 * against SQL Server (integration tests) through empty subclasses that only say how to open a
 * {@link ContractHistory}. Each test scripts its own table, named after a per-test counter, so
 * a shared server can host them all.
 *
 * <p>Assertions hold on a real server too: the capture job may add idle mapping entries at any
 * time, so database-wide results (max LSN, n-th entry) are checked against bounds, never
 * against exact counts of entries.
 */
public abstract class CdcClientContractTest {
  private static int tableCounter;

  protected ContractHistory history;
  protected CdcClient client;

  /** A new, empty history for one test; closed after the test. */
  protected abstract ContractHistory newHistory();

  @BeforeEach
  void openHistory() {
    history = newHistory();
    client = history.client();
  }

  @AfterEach
  void closeHistory() {
    if (history != null) {
      history.close();
    }
  }

  /** A table name unique within this JVM run. */
  protected static synchronized String tableName(String prefix) {
    return prefix + "_" + System.nanoTime() % 100_000 + "_" + (++tableCounter);
  }

  /**
   * The diagnostics the stream's facts figures come from (source_rtt_ms, network_wait_ms): a
   * round trip is always measured, and the network wait, where the server exposes it, is a
   * non-negative count that never decreases within a session.
   */
  @Test
  void roundTripAndNetworkWaitAreMeasurements() {
    assertThat(client.pingMillis()).isPresent();
    assertThat(client.pingMillis().getAsDouble()).isGreaterThanOrEqualTo(0.0);
    java.util.OptionalLong before = client.networkWaitMillis();
    java.util.OptionalLong after = client.networkWaitMillis();
    if (before.isPresent()) {
      assertThat(before.getAsLong()).isNotNegative();
      assertThat(after).isPresent();
      assertThat(after.getAsLong()).as("cumulative for the session").isGreaterThanOrEqualTo(before.getAsLong());
    }
  }

  @Test
  void captureHealthReadsTheMappingAndWhatTheLoginMayReadOfTheJobs() {
    Tracked t = track("health");
    history.commit(t.table(), List.of(RowOp.insert(1, "a", "1.00")));
    io.mssqlcdc.client.CaptureHealth h = client.captureHealth();
    Instant newest = client.commitTime(client.maxLsn().orElseThrow()).orElseThrow();
    assertThat(h.maxLsnTime()).isPresent();
    assertThat(java.time.Duration.between(newest, h.maxLsnTime().get()).abs()).as("the newest entry's time, from its age")
        .isLessThanOrEqualTo(java.time.Duration.ofSeconds(2));
    assertThat(h.observedAt()).isAfterOrEqualTo(h.maxLsnTime().get().minusSeconds(2));
    h.jobRunning().ifPresent(running -> assertThat(running).as("capture wrote the commit: its job runs").isTrue());
    h.lastScanEnd().ifPresent(end -> assertThat(end).isBeforeOrEqualTo(h.observedAt().plusSeconds(1)));
    h.cleanupRetention().ifPresent(r -> assertThat(r).isPositive());
    h.recentErrors().ifPresent(n -> assertThat(n).isNotNegative());
    if (h.unreadable().isEmpty()) {
      assertThat(h.jobRunning()).isPresent();
      assertThat(h.recentErrors()).isPresent();
    }
  }

  /** One change row as read, with the contract table's three columns. */
  protected record Change(Lsn startLsn, Lsn seqval, int operation, int commandId, Instant commitTime, Integer id,
      String name, BigDecimal amount) {}

  protected static final List<String> COLUMNS = List.of("id", "name", "amount");

  /** The change rows of {@code ci} in {@code [from, to]}, as the cursor returns them. */
  protected List<Change> read(String ci, Lsn from, Lsn to) {
    List<Change> out = new ArrayList<>();
    try (ChangeCursor c = client.changes(new ChangeQuery(ci, from, to, COLUMNS, true, 1000))) {
      while (c.next()) {
        out.add(new Change(c.startLsn(), c.seqval(), c.operation(), c.commandId(), c.commitTime(),
            (Integer) c.value(0), (String) c.value(1), (BigDecimal) c.value(2)));
      }
    }
    return out;
  }

  private static final Comparator<Change> READ_ORDER = Comparator.comparing(Change::startLsn)
      .thenComparingInt(Change::commandId)
      .thenComparing(Change::seqval)
      .thenComparingInt(Change::operation);

  /** A tracked table and its capture instance. */
  protected record Tracked(String table, String ci) {}

  protected Tracked track(String prefix) {
    String table = tableName(prefix);
    return new Tracked(table, history.createTrackedTable(table));
  }

  // ---- max / min LSN ------------------------------------------------------------------------

  @Test
  void maxLsnIsTheLastCommitAfterACommit() {
    Tracked t = track("max");
    Lsn lsn = history.commit(t.table(), List.of(RowOp.insert(1, "a", "1.00")));
    assertThat(client.maxLsn()).isPresent();
    assertThat(client.maxLsn().get()).isGreaterThanOrEqualTo(lsn);
  }

  @Test
  void minLsnIsTheLowWatermarkAtOrBeforeTheFirstCommit() {
    Tracked t = track("min");
    Lsn first = history.commit(t.table(), List.of(RowOp.insert(1, "a", "1.00")));
    Lsn min = client.minLsn(t.ci());
    assertThat(min).isNotEqualTo(Lsn.ZERO).isLessThanOrEqualTo(first);
    assertThat(read(t.ci(), min, first)).hasSize(1);
  }

  @Test
  void minLsnOfAnUnknownInstanceFailsNamingIt() {
    String name = tableName("nope") + "_ci";
    assertThatThrownBy(() -> client.minLsn(name))
        .isInstanceOf(CdcConfigException.class)
        .hasMessageContaining("Capture instance '" + name + "' not found")
        .hasMessageContaining("sys.fn_cdc_get_min_lsn returned 0x00000000000000000000");
  }

  // ---- increment / decrement / commit times ----------------------------------------------------

  @Test
  void incrementAndDecrementAreNeighbours() {
    Tracked t = track("inc");
    Lsn lsn = history.commit(t.table(), List.of(RowOp.insert(1, "a", "1.00")));
    Lsn up = client.incrementLsn(lsn);
    Lsn down = client.decrementLsn(lsn);
    assertThat(up).isGreaterThan(lsn);
    assertThat(down).isLessThan(lsn);
    assertThat(client.decrementLsn(up)).isEqualTo(lsn);
    assertThat(client.incrementLsn(down)).isEqualTo(lsn);
  }

  @Test
  void commitTimeIsReportedForAnEntryOnlyAndAtOrBeforeForAnyLsn() {
    Tracked t = track("time");
    Lsn l1 = history.commit(t.table(), List.of(RowOp.insert(1, "a", "1.00")));
    Lsn l2 = history.commit(t.table(), List.of(RowOp.insert(2, "b", "2.00")));
    Optional<Instant> t1 = client.commitTime(l1);
    Optional<Instant> t2 = client.commitTime(l2);
    assertThat(t1).isPresent();
    assertThat(t2).isPresent();
    assertThat(t2.get()).isAfterOrEqualTo(t1.get());
    assertThat(client.commitTime(client.decrementLsn(l2))).isEmpty();
    assertThat(client.commitTimeAtOrBefore(l2)).isEqualTo(t2);
    assertThat(client.commitTimeAtOrBefore(client.incrementLsn(l2))).isEqualTo(t2);
    assertThat(client.commitTimeAtOrBefore(Lsn.ZERO.increment())).isEmpty();
    assertThat(read(t.ci(), l1, l2)).extracting(Change::commitTime).containsExactly(t1.get(), t2.get());
  }

  // ---- change rows ------------------------------------------------------------------------------

  @Test
  void changesAreOrderedByStartLsnCommandIdSeqvalOperation() {
    Tracked t = track("order");
    Lsn l1 = history.commit(t.table(), List.of(RowOp.insert(1, "a", "1.00"), RowOp.insert(2, "b", "2.00")));
    Lsn l2 = history.commit(t.table(),
        List.of(RowOp.update(1, "a2", "1.50"), RowOp.delete(2), RowOp.insert(3, "c", null)));
    List<Change> rows = read(t.ci(), l1, l2);

    assertThat(rows).isSortedAccordingTo(READ_ORDER);
    assertThat(rows).extracting(Change::startLsn).containsExactly(l1, l1, l2, l2, l2, l2);
    assertThat(rows).extracting(Change::operation).containsExactly(2, 2, 3, 4, 1, 2);
    assertThat(rows).extracting(Change::id).containsExactly(1, 2, 1, 1, 2, 3);
    assertThat(rows).extracting(Change::name).containsExactly("a", "b", "a", "a2", "b", "c");
    assertThat(rows).extracting(Change::amount).containsExactly(
        new BigDecimal("1.00"), new BigDecimal("2.00"), new BigDecimal("1.00"), new BigDecimal("1.50"),
        new BigDecimal("2.00"), null);
    Change before = rows.get(2);
    Change after = rows.get(3);
    assertThat(after.seqval()).isEqualTo(before.seqval());
    assertThat(after.commandId()).isEqualTo(before.commandId());
    assertThat(rows.get(4).seqval()).isGreaterThan(before.seqval());
  }

  /** A keys-only read (reconcile's unread changes): the same rows in the same order, no commit times. */
  @Test
  void changesWithoutCommitTimesAreTheSameRowsWithoutTimes() {
    Tracked t = track("keysonly");
    Lsn l1 = history.commit(t.table(), List.of(RowOp.insert(1, "a", "1.00"), RowOp.insert(2, "b", "2.00")));
    Lsn l2 = history.commit(t.table(), List.of(RowOp.update(1, "a2", "1.50"), RowOp.delete(2)));
    List<Change> full = read(t.ci(), l1, l2);
    List<Change> keys = new ArrayList<>();
    try (ChangeCursor c = client.changes(new ChangeQuery(t.ci(), l1, l2, List.of("id"), true, 1000, false))) {
      while (c.next()) {
        keys.add(new Change(c.startLsn(), c.seqval(), c.operation(), c.commandId(), c.commitTime(),
            (Integer) c.value(0), null, null));
      }
    }
    assertThat(keys).extracting(Change::commitTime).containsOnlyNulls().hasSize(full.size());
    assertThat(keys).isEqualTo(full.stream().map(f -> new Change(f.startLsn(), f.seqval(), f.operation(),
        f.commandId(), null, f.id(), null, null)).toList());
  }

  @Test
  void changesBoundsAreInclusive() {
    Tracked t = track("bounds");
    Lsn l1 = history.commit(t.table(), List.of(RowOp.insert(1, "a", "1.00")));
    Lsn l2 = history.commit(t.table(), List.of(RowOp.insert(2, "b", "2.00")));
    Lsn l3 = history.commit(t.table(), List.of(RowOp.insert(3, "c", "3.00")));

    assertThat(read(t.ci(), l1, l3)).extracting(Change::id).containsExactly(1, 2, 3);
    assertThat(read(t.ci(), l2, l3)).extracting(Change::id).containsExactly(2, 3);
    assertThat(read(t.ci(), l1, l2)).extracting(Change::id).containsExactly(1, 2);
    assertThat(read(t.ci(), client.incrementLsn(l1), client.decrementLsn(l3))).extracting(Change::id)
        .containsExactly(2);
  }

  @Test
  void emptyRangesReadNothing() {
    Tracked t = track("empty");
    Lsn l1 = history.commit(t.table(), List.of(RowOp.insert(1, "a", "1.00")));
    Lsn l2 = history.commit(t.table(), List.of(RowOp.insert(2, "b", "2.00")));

    assertThat(read(t.ci(), client.incrementLsn(l2), Lsn.MAX)).isEmpty();
    assertThat(read(t.ci(), l2, l1)).isEmpty();
    assertThat(read(t.ci(), client.incrementLsn(l1), client.incrementLsn(l1))).isEmpty();
    assertThat(read(t.ci(), l2, l2)).extracting(Change::id).containsExactly(2);
    assertThat(client.splitPoints(t.ci(), client.incrementLsn(l2), Lsn.MAX, 4)).isEmpty();
  }

  @Test
  void requestedColumnsMatchCapturedNamesIgnoringCase() {
    // SQL Server resolves [NAME] to a column name ignoring case only under a case-insensitive
    // collation; clients match the requested names to the captured ones themselves (exact first,
    // then ignoring case) and read SQL Server's spelling, so a declared 'columns' in another case
    // reads the values, not NULL. A name no instance captures reads NULL.
    Tracked t = track("case");
    Lsn l1 = history.commit(t.table(), List.of(RowOp.insert(7, "seven", "7.70")));
    List<Object> row = new ArrayList<>();
    try (ChangeCursor c = client.changes(new ChangeQuery(t.ci(), l1, l1, List.of("NAME", "Id", "missing", "aMoUnT"), true, 10))) {
      assertThat(c.next()).isTrue();
      for (int i = 0; i < 4; i++) {
        row.add(c.value(i));
      }
      assertThat(c.next()).isFalse();
    }
    assertThat(row).containsExactly("seven", 7, null, new BigDecimal("7.70"));
  }

  // ---- cleanup ----------------------------------------------------------------------------------

  @Test
  void cleanupMovesMinLsnAndPurgesRowsBelowIt() {
    Tracked t = track("clean");
    Lsn l1 = history.commit(t.table(), List.of(RowOp.insert(1, "a", "1.00")));
    Lsn l2 = history.commit(t.table(), List.of(RowOp.insert(2, "b", "2.00")));
    Lsn l3 = history.commit(t.table(), List.of(RowOp.insert(3, "c", "3.00")));

    history.cleanup(t.ci(), l2);

    assertThat(client.minLsn(t.ci())).isEqualTo(l2);
    assertThat(read(t.ci(), l1, l1)).isEmpty();
    assertThat(read(t.ci(), l1, l3)).extracting(Change::id).containsExactly(2, 3);
    assertThat(read(t.ci(), client.minLsn(t.ci()), l3)).extracting(Change::startLsn).containsExactly(l2, l3);
  }

  // ---- capture instances ------------------------------------------------------------------------

  @Test
  void aSecondInstanceStartsAtTheNextCommitAndIsListedAfterTheFirst() {
    Tracked t = track("two");
    Lsn before = history.commit(t.table(), List.of(RowOp.insert(1, "a", "1.00")));
    String second = t.ci() + "_v2";
    history.addCaptureInstance(t.table(), second, List.of("id", "amount"));
    Lsn after = history.commit(t.table(), List.of(RowOp.update(1, "b", "2.00")));

    List<CaptureInstance> instances = client.captureInstances(t.ci());
    assertThat(instances).extracting(CaptureInstance::name).containsExactly(t.ci(), second);
    assertThat(instances.get(0).startLsn()).isLessThanOrEqualTo(before);
    assertThat(instances.get(1).startLsn()).isGreaterThan(before).isLessThanOrEqualTo(after);
    assertThat(instances).allSatisfy(ci -> {
      assertThat(ci.sourceSchema()).isEqualTo("dbo");
      assertThat(ci.sourceTable()).isEqualTo(t.table());
      assertThat(ci.indexColumns()).containsExactly("id");
    });
    assertThat(client.captureInstances(second)).extracting(CaptureInstance::name).containsExactly(t.ci(), second);
    assertThat(read(second, client.minLsn(second), after)).extracting(Change::operation).containsExactly(3, 4);
    assertThat(read(second, client.minLsn(second), after)).extracting(Change::name).containsOnlyNulls();
  }

  @Test
  void everyCaptureInstanceIsListedByTableOldestFirst() {
    Tracked t = track("lst");
    String second = t.ci() + "_v2";
    history.addCaptureInstance(t.table(), second, List.of("id", "amount"));
    List<CaptureInstance> all = client.allCaptureInstances();
    assertThat(all).filteredOn(i -> i.sourceTable().equals(t.table()))
        .extracting(CaptureInstance::name).containsExactly(t.ci(), second);
    assertThat(all).filteredOn(i -> i.sourceTable().equals(t.table()))
        .allSatisfy(i -> assertThat(i.sourceSchema()).isEqualTo("dbo"));
    List<String> tables = all.stream().map(i -> (i.sourceSchema() + "." + i.sourceTable()).toLowerCase(Locale.ROOT))
        .toList();
    assertThat(tables).isSorted();
  }

  @Test
  void instanceNamesResolveExactlyThenIgnoringCase() {
    Tracked t = track("res");
    assertThat(client.captureInstances(t.ci().toUpperCase(Locale.ROOT)))
        .extracting(CaptureInstance::name).containsExactly(t.ci());
    String missing = t.ci() + "_gone";
    assertThatThrownBy(() -> client.captureInstances(missing))
        .isInstanceOf(CdcConfigException.class)
        .hasMessageContaining("Capture instance '" + missing + "' not found");
  }

  @Test
  void capturedColumnsAreListedByOrdinalWithTheirTypes() {
    Tracked t = track("cols");
    String second = t.ci() + "_v2";
    history.addCaptureInstance(t.table(), second, List.of("id", "amount"));

    List<CapturedColumn> all = client.capturedColumns(t.ci());
    assertThat(all).extracting(CapturedColumn::name).containsExactly("id", "name", "amount");
    assertThat(all).extracting(CapturedColumn::ordinal).containsExactly(1, 2, 3);
    assertThat(all).extracting(c -> c.type().declaration()).containsExactly("int", "nvarchar(50)", "decimal(18,2)");
    assertThat(all).extracting(CapturedColumn::computed).containsOnly(false);
    List<CapturedColumn> some = client.capturedColumns(second);
    assertThat(some).extracting(CapturedColumn::name).containsExactly("id", "amount");
    assertThat(some).extracting(CapturedColumn::columnId)
        .containsExactly(all.get(0).columnId(), all.get(2).columnId());
    assertThatThrownBy(() -> client.capturedColumns(t.ci() + "_x"))
        .isInstanceOf(CdcConfigException.class)
        .hasMessageContaining("Capture instance '" + t.ci() + "_x' not found");
  }

  // ---- nthCommitAfter ---------------------------------------------------------------------------

  @Test
  void nthCommitAfterCountsMappingEntries() {
    Tracked t = track("nth");
    Lsn l1 = history.commit(t.table(), List.of(RowOp.insert(1, "a", "1.00")));
    Lsn l2 = history.commit(t.table(), List.of(RowOp.insert(2, "b", "2.00")));
    Lsn l3 = history.commit(t.table(), List.of(RowOp.insert(3, "c", "3.00")));

    Lsn first = client.nthCommitAfter(l1, 1).orElseThrow();
    assertThat(first).isGreaterThan(l1).isLessThanOrEqualTo(l2);
    Lsn second = client.nthCommitAfter(l1, 2).orElseThrow();
    assertThat(second).isGreaterThan(first).isLessThanOrEqualTo(l3);
    assertThat(client.nthCommitAfter(client.decrementLsn(l1), 1)).contains(l1);
    assertThat(client.commitTime(first)).isPresent();
  }

  @Test
  void nthCommitAfterReturnsTheLastWhenFewerAndNothingAfterTheEnd() {
    Tracked t = track("nthlast");
    Lsn l1 = history.commit(t.table(), List.of(RowOp.insert(1, "a", "1.00")));
    Lsn maxBefore = client.maxLsn().orElseThrow();
    Lsn last = client.nthCommitAfter(client.decrementLsn(l1), 1_000_000).orElseThrow();
    Lsn maxAfter = client.maxLsn().orElseThrow();
    assertThat(last).isBetween(maxBefore, maxAfter);
    assertThat(client.nthCommitAfter(Lsn.MAX, 1)).isEmpty();
    assertThatThrownBy(() -> client.nthCommitAfter(l1, 0)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void commitsBetweenCountsMappingEntriesUpToALimit() {
    Tracked t = track("count");
    Lsn l1 = history.commit(t.table(), List.of(RowOp.insert(1, "a", "1.00")));
    Lsn l2 = history.commit(t.table(), List.of(RowOp.insert(2, "b", "2.00")));
    Lsn l3 = history.commit(t.table(), List.of(RowOp.insert(3, "c", "3.00")));

    // capture may write idle entries in between: the count agrees with nthCommitAfter's
    long n = client.commitsBetween(l1, l3, 1_000_000);
    assertThat(n).isGreaterThanOrEqualTo(2);
    assertThat(client.nthCommitAfter(l1, (int) n)).contains(l3);
    assertThat(client.nthCommitAfter(l1, (int) n - 1).orElseThrow()).isLessThan(l3);
    assertThat(client.commitsBetween(l1, l2, 1_000_000)).isBetween(1L, n - 1);
    assertThat(client.commitsBetween(l1, l3, 1)).as("counting stops at the limit").isEqualTo(1);
    assertThat(client.commitsBetween(client.decrementLsn(l1), l1, 10)).isEqualTo(1);
    assertThat(client.commitsBetween(l2, l2, 10)).isZero();
    assertThat(client.commitsBetween(l3, l1, 10)).isZero();
    assertThat(client.commitsBetween(client.maxLsn().orElseThrow(), Lsn.MAX, 10)).isZero();
    assertThatThrownBy(() -> client.commitsBetween(l1, l3, 0)).isInstanceOf(IllegalArgumentException.class);
  }

  // ---- clock --------------------------------------------------------------------------------------

  @Test
  void refreshingTheClockKeepsConvertingCommitTimes() {
    Tracked t = track("clock");
    Lsn l1 = history.commit(t.table(), List.of(RowOp.insert(1, "a", "1.00")));
    String zone = client.sourceTimeZone();
    Optional<Instant> before = client.commitTime(l1);
    assertThat(client.refreshSourceTimeZone()).isEqualTo(zone).isEqualTo(client.sourceTimeZone());
    assertThat(client.commitTime(l1)).isPresent().isEqualTo(before);
  }

  /**
   * New York, 2026-11-01: at 02:00 EDT (UTC-4) the clock falls back to 01:00 EST (UTC-5), so local
   * times 01:00-02:00 happen twice. Commit times in LSN order: the first pass converts with EDT,
   * the second (recognised by the drop of the clock before it) with EST, so it does not come out
   * an hour early, before the first. Reference §9; both clients must give these instants for this
   * history.
   */
  @Test
  void commitTimesInAFallBackHourAreUtcAndInOrder() {
    Tracked t = track("dst");
    String[] local = {
        "2026-11-01T00:50:00", "2026-11-01T01:20:00", "2026-11-01T01:55:00", // first pass, EDT
        "2026-11-01T01:05:00", "2026-11-01T01:40:00",                         // second pass, EST
        "2026-11-01T01:39:30",                                                 // 30 s back: no drop, still EST
        "2026-11-01T02:10:00", "2026-11-01T04:00:00"};
    String[] utc = {
        "2026-11-01T04:50:00Z", "2026-11-01T05:20:00Z", "2026-11-01T05:55:00Z",
        "2026-11-01T06:05:00Z", "2026-11-01T06:40:00Z", "2026-11-01T06:39:30Z",
        "2026-11-01T07:10:00Z", "2026-11-01T09:00:00Z"};
    List<Lsn> lsns = new ArrayList<>();
    for (int i = 0; i < local.length; i++) {
      lsns.add(history.commitAt(t.table(), List.of(RowOp.insert(i + 1, "r" + i, "1.00")),
          java.time.LocalDateTime.parse(local[i])));
    }
    CdcClient ny = history.clientWithClock("America/New_York");
    List<Instant> expected = java.util.Arrays.stream(utc).map(Instant::parse).toList();

    List<Instant> read = new ArrayList<>();
    try (ChangeCursor c = ny.changes(new ChangeQuery(t.ci(), lsns.get(0), lsns.get(lsns.size() - 1), COLUMNS, true, 100))) {
      while (c.next()) {
        read.add(c.commitTime());
      }
    }
    assertThat(read).as("one read over the whole history").isEqualTo(expected);
    for (int i = 0; i < lsns.size(); i++) {
      assertThat(ny.commitTime(lsns.get(i))).as("commitTime of commit %d (%s local)", i, local[i]).contains(expected.get(i));
    }
    List<Instant> secondPass = new ArrayList<>();
    try (ChangeCursor c = ny.changes(new ChangeQuery(t.ci(), lsns.get(3), lsns.get(4), COLUMNS, true, 100))) {
      while (c.next()) {
        secondPass.add(c.commitTime());
      }
    }
    assertThat(secondPass).as("a read that starts in the second pass").isEqualTo(expected.subList(3, 5));
    assertThat(ny.commitTimeAtOrBefore(ny.incrementLsn(lsns.get(3)))).contains(expected.get(3));
  }

  /** Spring forward needs no correction; a European fall-back (Berlin, 03:00 CEST to 02:00 CET) is corrected too. */
  @Test
  void commitTimesAcrossASpringForwardAndAEuropeanFallBack() {
    Tracked t = track("dst2");
    Lsn s1 = history.commitAt(t.table(), List.of(RowOp.insert(1, "a", "1.00")), java.time.LocalDateTime.parse("2026-03-08T01:59:00"));
    Lsn s2 = history.commitAt(t.table(), List.of(RowOp.insert(2, "b", "1.00")), java.time.LocalDateTime.parse("2026-03-08T03:01:00"));
    // A local time the spring-forward skips (02:00-03:00 does not exist that day), as a server whose
    // sourceTimeZone differs from its clock's can write: AT TIME ZONE moves it forward with the later
    // offset (02:30 -> 03:30 EDT = 07:30 UTC), not 02:30 EDT = 06:30 UTC.
    Lsn gap = history.commitAt(t.table(), List.of(RowOp.insert(3, "g", "1.00")), java.time.LocalDateTime.parse("2026-03-08T02:30:00"));
    CdcClient ny = history.clientWithClock("America/New_York");
    assertThat(ny.commitTime(s1)).contains(Instant.parse("2026-03-08T06:59:00Z"));
    assertThat(ny.commitTime(s2)).contains(Instant.parse("2026-03-08T07:01:00Z"));
    assertThat(ny.commitTime(gap)).contains(Instant.parse("2026-03-08T07:30:00Z"));
    List<Instant> spring = new ArrayList<>();
    try (ChangeCursor c = ny.changes(new ChangeQuery(t.ci(), s1, gap, COLUMNS, true, 100))) {
      while (c.next()) {
        spring.add(c.commitTime());
      }
    }
    assertThat(spring).containsExactly(Instant.parse("2026-03-08T06:59:00Z"), Instant.parse("2026-03-08T07:01:00Z"),
        Instant.parse("2026-03-08T07:30:00Z"));

    List<Lsn> b = new ArrayList<>();
    String[] local = {"2026-10-25T02:30:00", "2026-10-25T02:59:00", "2026-10-25T02:01:00", "2026-10-25T02:30:00"};
    for (int i = 0; i < local.length; i++) {
      b.add(history.commitAt(t.table(), List.of(RowOp.insert(10 + i, "c", "1.00")), java.time.LocalDateTime.parse(local[i])));
    }
    CdcClient berlin = history.clientWithClock("Europe/Berlin");
    List<Instant> read = new ArrayList<>();
    try (ChangeCursor c = berlin.changes(new ChangeQuery(t.ci(), b.get(0), b.get(3), COLUMNS, true, 100))) {
      while (c.next()) {
        read.add(c.commitTime());
      }
    }
    assertThat(read).containsExactly(Instant.parse("2026-10-25T00:30:00Z"), Instant.parse("2026-10-25T00:59:00Z"),
        Instant.parse("2026-10-25T01:01:00Z"), Instant.parse("2026-10-25T01:30:00Z"));
  }

  // ---- split points -----------------------------------------------------------------------------

  /** Commits of 3, 1, 2 and 4 change rows: 10 rows. */
  private List<Lsn> tenRowsInFourCommits(String table) {
    Lsn c1 = history.commit(table, List.of(RowOp.insert(1, "a", "1.00"), RowOp.insert(2, "b", "2.00"),
        RowOp.insert(3, "c", "3.00")));
    Lsn c2 = history.commit(table, List.of(RowOp.insert(4, "d", "4.00")));
    Lsn c3 = history.commit(table, List.of(RowOp.insert(5, "e", "5.00"), RowOp.insert(6, "f", "6.00")));
    Lsn c4 = history.commit(table, List.of(RowOp.update(1, "a2", "1.10"), RowOp.insert(7, "g", "7.00"),
        RowOp.insert(8, "h", "8.00")));
    return List.of(c1, c2, c3, c4);
  }

  @Test
  void splitPointsFollowNtileAlignedOnCommits() {
    Tracked t = track("split");
    List<Lsn> c = tenRowsInFourCommits(t.table());
    Lsn from = c.get(0);
    Lsn to = c.get(3);

    assertThat(client.splitPoints(t.ci(), from, to, 1)).containsExactly(point(c.get(3), 10));
    assertThat(client.splitPoints(t.ci(), from, to, 2)).containsExactly(point(c.get(2), 6), point(c.get(3), 4));
    assertThat(client.splitPoints(t.ci(), from, to, 3)).containsExactly(point(c.get(1), 4), point(c.get(3), 6));
    List<SplitPoint> perCommit = List.of(point(c.get(0), 3), point(c.get(1), 1), point(c.get(2), 2), point(c.get(3), 4));
    assertThat(client.splitPoints(t.ci(), from, to, 10)).isEqualTo(perCommit);
    assertThat(client.splitPoints(t.ci(), from, to, 13)).isEqualTo(perCommit);
  }

  @Test
  void splitPointsCoverTheRangeOnCommitBoundaries() {
    Tracked t = track("splitsum");
    List<Lsn> c = tenRowsInFourCommits(t.table());
    List<Change> rows = read(t.ci(), c.get(0), c.get(3));
    for (int n : new int[] {1, 2, 3, 4, 5, 7, 10, 13}) {
      List<SplitPoint> points = client.splitPoints(t.ci(), c.get(0), c.get(3), n);
      assertThat(points.size()).as("n=%d", n).isLessThanOrEqualTo(n);
      assertThat(points).extracting(SplitPoint::rows).as("n=%d", n)
          .allSatisfy(r -> assertThat(r).isPositive());
      assertThat(points.stream().mapToLong(SplitPoint::rows).sum()).as("n=%d", n).isEqualTo(rows.size());
      Lsn previous = Lsn.ZERO;
      for (SplitPoint p : points) {
        assertThat(c).as("bound of n=%d is a commit", n).contains(p.bound());
        assertThat(p.next()).isEqualTo(client.incrementLsn(p.bound()));
        Lsn lo = previous;
        long inRange = rows.stream().filter(r -> r.startLsn().isAfter(lo) && !r.startLsn().isAfter(p.bound())).count();
        assertThat(p.rows()).as("rows up to %s, n=%d", p.bound(), n).isEqualTo(inRange);
        previous = p.bound();
      }
      assertThat(points.get(points.size() - 1).bound()).isEqualTo(c.get(3));
    }
    // NTILE(2) over c2's 1 row and c3's 2 rows: the first tile ends inside c3, which stays whole in it
    assertThat(client.splitPoints(t.ci(), c.get(1), c.get(2), 2)).containsExactly(point(c.get(2), 3));
  }

  private SplitPoint point(Lsn bound, long rows) {
    return new SplitPoint(bound, client.incrementLsn(bound), rows);
  }

  // ---- time to LSN ------------------------------------------------------------------------------

  /**
   * On a UTC clock: the last commit at or before a time, to the millisecond. Times are scripted in
   * 2019, before any entry a server's clock writes (capture's idle entries carry the time now), so
   * none of those is at or before them.
   */
  @Test
  void lsnAtOrBeforeIsTheLastCommitAtOrBeforeAUtcTime() {
    Tracked t = track("asof");
    Lsn c1 = history.commitAt(t.table(), List.of(RowOp.insert(1, "a", "1.00")), LocalDateTime.parse("2019-06-03T10:00:00"));
    Lsn c2 = history.commitAt(t.table(), List.of(RowOp.insert(2, "b", "2.00")), LocalDateTime.parse("2019-06-03T10:00:05.500"));
    Lsn c3 = history.commitAt(t.table(), List.of(RowOp.insert(3, "c", "3.00")), LocalDateTime.parse("2019-06-03T10:01:00"));

    assertThat(client.lsnAtOrBefore(Instant.parse("2019-06-03T10:00:00Z"))).contains(c1);
    assertThat(client.lsnAtOrBefore(Instant.parse("2019-06-03T10:00:05.499Z"))).contains(c1);
    assertThat(client.lsnAtOrBefore(Instant.parse("2019-06-03T10:00:05.500Z"))).contains(c2);
    assertThat(client.lsnAtOrBefore(Instant.parse("2019-06-03T10:00:05.500999Z"))).as("to the millisecond").contains(c2);
    assertThat(client.lsnAtOrBefore(Instant.parse("2019-06-03T10:00:59.999Z"))).contains(c2);
    assertThat(client.lsnAtOrBefore(Instant.parse("2019-06-03T10:01:00Z"))).contains(c3);
    assertThat(client.commitTime(c2)).contains(Instant.parse("2019-06-03T10:00:05.500Z"));
    // a server kept for reruns may hold an earlier run's entries at these times: they come before c1
    assertThat(client.lsnAtOrBefore(Instant.parse("2019-06-03T09:59:59.999Z")).map(l -> l.isBefore(c1)).orElse(true)).isTrue();
    assertThat(client.lsnAtOrBefore(Instant.parse("1900-01-01T00:00:00Z"))).isEmpty();
    assertThat(client.lsnAtOrBefore(Instant.parse("0001-01-01T00:00:00Z").minusSeconds(1))).isEmpty();
    assertThat(client.lsnAtOrBefore(Instant.MAX)).as("every entry is before the end of time").hasValueSatisfying(
        l -> assertThat(l).isGreaterThanOrEqualTo(c3));
  }

  /**
   * São Paulo, 2019-02-17: at 00:00 BRST (UTC-2) the clock fell back to 23:00 BRT (UTC-3) of the
   * 16th, so 23:00-24:00 happened twice. A time in the first pass (01:50Z = 23:50 BRST) maps to the
   * first pass's last commit, not to the second pass's commits with earlier local times made up to
   * an hour later (which {@code sys.fn_cdc_map_time_to_lsn} of local 23:50 would return). No other
   * contract history has a São Paulo fall-back, so on a shared server none of its entries is a drop
   * in this zone.
   */
  @Test
  void lsnAtOrBeforeComparesUtcTimesAcrossAFallBack() {
    Tracked t = track("asofdst");
    String[] local = {
        "2019-02-16T22:50:00", "2019-02-16T23:20:00", "2019-02-16T23:55:00", // first pass, BRST
        "2019-02-16T23:05:00", "2019-02-16T23:40:00", "2019-02-17T00:30:00"}; // second pass, BRT
    List<Lsn> c = new ArrayList<>();
    for (int i = 0; i < local.length; i++) {
      c.add(history.commitAt(t.table(), List.of(RowOp.insert(i + 1, "r" + i, "1.00")), LocalDateTime.parse(local[i])));
    }
    CdcClient sp = history.clientWithClock("America/Sao_Paulo");
    assertThat(sp.commitTime(c.get(3))).contains(Instant.parse("2019-02-17T02:05:00Z"));

    assertThat(sp.lsnAtOrBefore(Instant.parse("2019-02-17T00:50:00Z"))).contains(c.get(0));
    assertThat(sp.lsnAtOrBefore(Instant.parse("2019-02-17T01:50:00Z"))).contains(c.get(1));
    assertThat(sp.lsnAtOrBefore(Instant.parse("2019-02-17T02:04:59.999Z"))).contains(c.get(2));
    assertThat(sp.lsnAtOrBefore(Instant.parse("2019-02-17T02:05:00Z"))).contains(c.get(3));
    assertThat(sp.lsnAtOrBefore(Instant.parse("2019-02-17T02:39:59.999Z"))).contains(c.get(3));
    assertThat(sp.lsnAtOrBefore(Instant.parse("2019-02-17T02:40:00Z"))).contains(c.get(4));
    assertThat(sp.lsnAtOrBefore(Instant.parse("2019-02-17T03:29:59.999Z"))).contains(c.get(4));
    assertThat(sp.lsnAtOrBefore(Instant.parse("2019-02-17T03:30:00Z"))).contains(c.get(5));
    assertThat(sp.lsnAtOrBefore(Instant.parse("2019-02-17T00:49:59.999Z")).map(l -> l.isBefore(c.get(0))).orElse(true))
        .isTrue();
  }

  // ---- the source table: counts, key buckets, key maximum, keyset bounds -----------------------

  /** {@code dbo.<prefix>_<n>}, created with {@code columns} and unique {@code key}, holding {@code rows}. */
  protected TableRef table(String prefix, List<String> columns, List<String> key, List<List<Object>> rows) {
    String name = tableName(prefix);
    history.createTable(name, columns, key);
    if (!rows.isEmpty()) {
      history.insert(name, rows);
    }
    return new TableRef("dbo", name);
  }

  /** Rows of one value each. */
  private static List<List<Object>> single(Object... values) {
    List<List<Object>> rows = new ArrayList<>();
    for (Object v : values) {
      rows.add(Arrays.asList(v));
    }
    return rows;
  }

  private static List<List<Object>> rows(Object[]... rows) {
    List<List<Object>> out = new ArrayList<>();
    for (Object[] r : rows) {
      out.add(Arrays.asList(r));
    }
    return out;
  }

  private static List<Object> key(Object... values) {
    return Arrays.asList(values);
  }

  private static KeyBucket bucket(long b, long rows, long sum) {
    return new KeyBucket(b, rows, BigInteger.valueOf(sum));
  }

  @Test
  void keyBucketsCountAndSumIntegerKeysPerFloorBucket() {
    TableRef t = table("kb", List.of("k int"), List.of("k"), single(-21, -20, -11, -10, -1, 0, 1, 9, 10, 25, null));

    // floor(k / 10): -21 → -3; -20, -11 → -2; -10, -1 → -1 (truncating division would put -1 in 0)
    assertThat(client.keyBuckets(t, "k", 10, KeyRange.ALL)).containsExactly(
        bucket(-3, 1, -21), bucket(-2, 2, -31), bucket(-1, 2, -11), bucket(0, 3, 10), bucket(1, 1, 10), bucket(2, 1, 25));
    assertThat(client.keyBuckets(t, "K", 10, new KeyRange(List.of(-11), List.of(10)))).as("[-11, 10), name in another case")
        .containsExactly(bucket(-2, 1, -11), bucket(-1, 2, -11), bucket(0, 3, 10));
    assertThat(client.keyBuckets(t, "k", 10, new KeyRange(null, List.of(-10L)))).as("open below: still no NULL key")
        .containsExactly(bucket(-3, 1, -21), bucket(-2, 2, -31));
    assertThat(client.keyBuckets(t, "k", 1, new KeyRange(List.of((short) 0), null)))
        .containsExactly(bucket(0, 1, 0), bucket(1, 1, 1), bucket(9, 1, 9), bucket(10, 1, 10), bucket(25, 1, 25));
    assertThat(client.keyBuckets(t, "k", 10, new KeyRange(List.of(11), List.of(25)))).isEmpty();
    assertThat(client.countRows(t)).as("NULL key included").isEqualTo(11);
  }

  @Test
  void keyBucketSumsOfBigintKeysPassBigintAndBucketsFloorAtItsEnds() {
    long min = Long.MIN_VALUE;
    long max = Long.MAX_VALUE;
    TableRef t = table("kbig", List.of("k bigint"), List.of("k"), single(min, min + 1, -1L, max - 1, max));

    // width 2^63 - 1: floor(min / w) = -2, floor((min + 1) / w) = -1 exactly, floor(-1 / w) = -1
    assertThat(client.keyBuckets(t, "k", max, KeyRange.ALL)).containsExactly(
        new KeyBucket(-2, 1, BigInteger.valueOf(min)),
        new KeyBucket(-1, 2, BigInteger.valueOf(min)),
        new KeyBucket(0, 1, BigInteger.valueOf(max - 1)),
        new KeyBucket(1, 1, BigInteger.valueOf(max)));
    BigInteger top = BigInteger.TWO.pow(64).subtract(BigInteger.valueOf(3)); // (2^63 - 2) + (2^63 - 1)
    long w = 1L << 62;
    assertThat(client.keyBuckets(t, "k", w, new KeyRange(List.of(0), List.of(BigInteger.TWO.pow(63)))))
        .as("a bound past bigint is the open end it is").containsExactly(new KeyBucket(1, 2, top));
    assertThat(client.keyBuckets(t, "k", w, new KeyRange(List.of(BigInteger.TWO.pow(63).negate().subtract(BigInteger.ONE)),
        List.of(-1)))).containsExactly(new KeyBucket(-2, 2, BigInteger.valueOf(min).add(BigInteger.valueOf(min + 1))));
  }

  @Test
  void keyBucketsOfDateKeysCountDaysSince1970() {
    TableRef t = table("kbd", List.of("d date", "v int"), List.of("d"), rows(
        new Object[] {LocalDate.of(1, 1, 1), 1}, new Object[] {LocalDate.of(1969, 12, 31), 2},
        new Object[] {LocalDate.of(1970, 1, 1), 3}, new Object[] {LocalDate.of(1970, 1, 7), 4},
        new Object[] {LocalDate.of(1970, 1, 8), 5}, new Object[] {LocalDate.of(9999, 12, 31), 6}, new Object[] {null, 7}));

    // ordinals -719162, -1, 0, 6, 7, 2932896; weeks: floor(o / 7)
    assertThat(client.keyBuckets(t, "d", 7, KeyRange.ALL)).containsExactly(
        bucket(-102738, 1, -719162), bucket(-1, 1, -1), bucket(0, 2, 6), bucket(1, 1, 7), bucket(418985, 1, 2932896));
    assertThat(client.keyBuckets(t, "d", 7, new KeyRange(List.of(LocalDate.of(1969, 12, 31)), List.of(LocalDate.of(1970, 1, 8)))))
        .containsExactly(bucket(-1, 1, -1), bucket(0, 2, 6));
    assertThat(client.keyBuckets(t, "d", 1_000_000, KeyRange.ALL)).containsExactly(
        bucket(-1, 2, -719162 - 1), bucket(0, 3, 0 + 6 + 7), bucket(2, 1, 2932896));
    assertThat(client.countRows(t)).isEqualTo(7);
  }

  @Test
  void keyBucketsRefuseKeysOfOtherTypesAndBadArgumentsNamingThem() {
    TableRef t = table("kbe", List.of("code nvarchar(10)", "amount decimal(18,0)", "n int"), List.of("code"),
        rows(new Object[] {"a", new BigDecimal("1"), 1}));
    String name = "dbo." + t.table();
    assertThatThrownBy(() -> client.keyBuckets(t, "code", 10, KeyRange.ALL)).isInstanceOf(CdcConfigException.class)
        .hasMessageContaining("Key buckets cannot use " + name + "'s key [code]: code is nvarchar(10), and key buckets take"
            + " one integer (tinyint, smallint, int, bigint) or date column");
    assertThatThrownBy(() -> client.keyBuckets(t, "amount", 10, KeyRange.ALL)).isInstanceOf(CdcConfigException.class)
        .hasMessageContaining("amount is decimal(18,0)");
    assertThatThrownBy(() -> client.keyBuckets(t, "nope", 10, KeyRange.ALL)).isInstanceOf(CdcConfigException.class)
        .hasMessageContaining("Key buckets cannot use " + name + "'s key [nope]: the table has no column nope (it has code,"
            + " amount, n)");
    assertThatThrownBy(() -> client.keyBuckets(t, "n", 0, KeyRange.ALL)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("width").hasMessageContaining("0");
    assertThatThrownBy(() -> client.keyBuckets(t, "n", 10, new KeyRange(List.of(LocalDate.of(2020, 1, 1)), null)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("lower bound of key buckets over an integer key must be an integral number");
    assertThatThrownBy(() -> client.keyBuckets(t, "n", 10, new KeyRange(null, List.of(1, 2))))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("upper bound needs one value, not 2");
    TableRef missing = new TableRef("dbo", t.table() + "_gone");
    assertThatThrownBy(() -> client.keyBuckets(missing, "n", 10, KeyRange.ALL)).isInstanceOf(CdcConfigException.class)
        .hasMessageContaining(t.table() + "_gone");
    assertThatThrownBy(() -> client.countRows(missing)).isInstanceOf(CdcConfigException.class)
        .hasMessageContaining(t.table() + "_gone");
  }

  @Test
  void rowEstimateIsTheTablesRowCountAndZeroWhenEmpty() {
    TableRef empty = table("est0", List.of("k int"), List.of("k"), List.of());
    TableRef five = table("est5", List.of("k int", "s nvarchar(5)"), List.of("k"),
        rows(new Object[] {1, "a"}, new Object[] {2, "b"}, new Object[] {3, null}, new Object[] {null, "n"}, new Object[] {5, "e"}));

    assertThat(client.rowEstimate(empty)).isZero();
    assertThat(client.countRows(empty)).isZero();
    assertThat(client.rowEstimate(five)).isEqualTo(5);
    assertThat(client.countRows(five)).isEqualTo(5);
    assertThatThrownBy(() -> client.rowEstimate(new TableRef("dbo", five.table() + "_gone")))
        .isInstanceOf(CdcConfigException.class).hasMessageContaining(five.table() + "_gone");
  }

  @Test
  void keyMaxIsTheLargestKeyInSqlServersOrder() {
    TableRef t = table("kmax", List.of("a int", "b nvarchar(10)"), List.of("a", "b"), rows(
        new Object[] {1, "x"}, new Object[] {2, null}, new Object[] {2, "B"}, new Object[] {2, "a"}, new Object[] {null, "z"}));

    // NULL lowest; 'a' above 'B' in the binary collation the table has (a case-insensitive one puts 'B' higher)
    assertThat(client.keyMax(t, List.of("a", "b"))).contains(key(2, "a"));
    assertThat(client.keyMax(t, List.of("B", "A"))).as("another order, names in another case").contains(key("z", null));
    assertThat(client.keyMax(t, List.of("a"))).contains(key(2));
    assertThat(client.keyMax(table("kmax0", List.of("k int"), List.of("k"), List.of()), List.of("k"))).isEmpty();
    assertThat(client.keyMax(table("kmaxn", List.of("k int"), List.of("k"), single((Object) null)), List.of("k")))
        .contains(key((Object) null));
    assertThatThrownBy(() -> client.keyMax(t, List.of("a", "c"))).isInstanceOf(CdcConfigException.class)
        .hasMessageContaining("The key maximum cannot use dbo." + t.table() + "'s key [a, c]: the table has no column c");
  }

  @Test
  void keyBoundIsTheKeyLeavingNRowsOfTheRangeBeforeIt() {
    TableRef t = table("kbound", List.of("a int", "b nvarchar(10)", "v int"), List.of("a", "b"), rows(
        new Object[] {4, "d", 0}, new Object[] {2, "a", 0}, new Object[] {null, "n", 0}, new Object[] {1, "b", 0},
        new Object[] {2, null, 0}, new Object[] {3, "c", 0}, new Object[] {2, "B", 0}, new Object[] {1, "a", 0}));
    // in key order: [null,n] [1,a] [1,b] [2,null] [2,B] [2,a] [3,c] [4,d]
    List<String> k = List.of("a", "b");

    assertThat(client.keyBound(t, k, KeyRange.ALL, 0)).contains(key(null, "n"));
    assertThat(client.keyBound(t, k, KeyRange.ALL, 3)).contains(key(2, null));
    assertThat(client.keyBound(t, k, KeyRange.ALL, 7)).contains(key(4, "d"));
    assertThat(client.keyBound(t, k, KeyRange.ALL, 8)).isEmpty();

    KeyRange mid = new KeyRange(key(1, "b"), key(3, "c")); // [1,b] [2,null] [2,B] [2,a]
    assertThat(client.keyBound(t, k, mid, 0)).contains(key(1, "b"));
    assertThat(client.keyBound(t, k, mid, 2)).contains(key(2, "B"));
    assertThat(client.keyBound(t, k, mid, 3)).contains(key(2, "a"));
    assertThat(client.keyBound(t, k, mid, 4)).as("the top is exclusive").isEmpty();
    KeyRange fromNull = new KeyRange(key(2, null), key(3, "c")); // [2,null] [2,B] [2,a]
    assertThat(client.keyBound(t, k, fromNull, 0)).contains(key(2, null));
    assertThat(client.keyBound(t, k, fromNull, 2)).contains(key(2, "a"));
    assertThat(client.keyBound(t, k, fromNull, 3)).isEmpty();
    assertThat(client.keyBound(t, k, new KeyRange(key(2, "B"), null), 1)).contains(key(2, "a"));
    KeyRange below = new KeyRange(null, key(2, "a")); // [null,n] [1,a] [1,b] [2,null] [2,B]
    assertThat(client.keyBound(t, List.of("A", "B"), below, 4)).contains(key(2, "B"));
    assertThat(client.keyBound(t, k, below, 5)).isEmpty();

    // the keyset plan's walk (reference §12.9): bounds every 3 rows below the largest key
    List<Object> top = client.keyMax(t, k).orElseThrow();
    List<List<Object>> bounds = new ArrayList<>();
    List<Object> lo = null;
    for (Optional<List<Object>> b = client.keyBound(t, k, new KeyRange(null, top), 3); b.isPresent();
        b = client.keyBound(t, k, new KeyRange(lo, top), 3)) {
      lo = b.get();
      bounds.add(lo);
    }
    assertThat(bounds).containsExactly(key(2, null), key(3, "c"));

    assertThatThrownBy(() -> client.keyBound(t, k, KeyRange.ALL, -1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("-1");
    assertThatThrownBy(() -> client.keyBound(t, k, new KeyRange(key(1), null), 0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("one bound value per key column (2)");
    TableRef times = table("kboundt", List.of("t time(7)"), List.of("t"), List.of());
    assertThat(client.keyBound(times, List.of("t"), KeyRange.ALL, 0)).as("no bound to bind").isEmpty();
    assertThatThrownBy(() -> client.keyBound(times, List.of("t"), new KeyRange(key("10:00:00"), null), 0))
        .isInstanceOf(CdcConfigException.class)
        .hasMessageContaining("A keyset bound cannot use dbo." + times.table() + "'s key [t]: t is time(7), which no text"
            + " bound reads back");
  }
}
