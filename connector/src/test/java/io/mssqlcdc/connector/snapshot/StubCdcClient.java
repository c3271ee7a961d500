package io.mssqlcdc.connector.snapshot;

import io.mssqlcdc.client.CaptureInstance;
import io.mssqlcdc.client.CapturedColumn;
import io.mssqlcdc.client.CdcClient;
import io.mssqlcdc.client.ChangeCursor;
import io.mssqlcdc.client.ChangeQuery;
import io.mssqlcdc.client.DdlEvent;
import io.mssqlcdc.client.KeyRange;
import io.mssqlcdc.client.RowCursor;
import io.mssqlcdc.client.SourceTable;
import io.mssqlcdc.client.SplitPoint;
import io.mssqlcdc.client.TableColumn;
import io.mssqlcdc.client.TableQuery;
import io.mssqlcdc.client.TableRef;
import io.mssqlcdc.lsn.Lsn;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** A scripted client for planner unit tests: metadata set by the test, calls recorded. */
class StubCdcClient implements CdcClient {
  Optional<Lsn> maxLsn = Optional.empty();
  Map<Lsn, Instant> commitTimes = new HashMap<>();
  List<CaptureInstance> instances = new ArrayList<>();
  Map<String, List<CapturedColumn>> captured = new HashMap<>();
  SourceTable source;
  List<TableColumn> tableColumns = new ArrayList<>();
  Optional<List<Object>> minMax = Optional.empty();
  List<List<Object>> tiles = List.of();
  final List<String> calls = new ArrayList<>();

  @Override
  public Optional<Lsn> maxLsn() {
    calls.add("maxLsn");
    return maxLsn;
  }

  @Override
  public Lsn minLsn(String captureInstance) {
    throw new UnsupportedOperationException();
  }

  @Override
  public Lsn incrementLsn(Lsn lsn) {
    return lsn.increment();
  }

  @Override
  public Lsn decrementLsn(Lsn lsn) {
    return lsn.decrement();
  }

  @Override
  public Optional<Instant> commitTime(Lsn lsn) {
    return Optional.ofNullable(commitTimes.get(lsn));
  }

  @Override
  public Optional<Instant> commitTimeAtOrBefore(Lsn lsn) {
    throw new UnsupportedOperationException();
  }

  @Override
  public Optional<Lsn> nthCommitAfter(Lsn after, int n) {
    throw new UnsupportedOperationException();
  }

  @Override
  public long commitsBetween(Lsn after, Lsn upTo, int limit) {
    throw new UnsupportedOperationException();
  }

  @Override
  public String refreshSourceTimeZone() {
    return sourceTimeZone();
  }

  @Override
  public List<CaptureInstance> captureInstances(String captureInstance) {
    calls.add("captureInstances");
    return instances;
  }

  @Override
  public List<CapturedColumn> capturedColumns(String captureInstance) {
    return captured.get(captureInstance);
  }

  @Override
  public List<DdlEvent> ddlHistory(String captureInstance, Lsn after, Lsn to) {
    throw new UnsupportedOperationException();
  }

  @Override
  public List<SplitPoint> splitPoints(String captureInstance, Lsn from, Lsn to, int n) {
    throw new UnsupportedOperationException();
  }

  @Override
  public ChangeCursor changes(ChangeQuery query) {
    throw new UnsupportedOperationException();
  }

  @Override
  public SourceTable sourceTable(String captureInstance) {
    calls.add("sourceTable");
    return source;
  }

  @Override
  public List<TableColumn> tableColumns(TableRef table) {
    calls.add("tableColumns");
    return tableColumns;
  }

  @Override
  public Optional<List<Object>> keyMinMax(TableRef table, String key, KeyRange range) {
    calls.add("keyMinMax " + key);
    return minMax;
  }

  @Override
  public List<List<Object>> keyTiles(TableRef table, List<String> keys, int n) {
    calls.add("keyTiles " + keys + " " + n);
    return tiles;
  }

  @Override
  public RowCursor readTable(TableQuery query) {
    throw new UnsupportedOperationException();
  }

  @Override
  public String sourceTimeZone() {
    return "UTC";
  }

  @Override
  public void close() {}
}
