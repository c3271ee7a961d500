"""Reconcile from Python: ``mssql_cdc.Reconcile`` proves the silver of conftest's ``silver_run`` (stream →
bronze → silver on the fake) equal to the fake's table, and names the keys of a copy of that silver
changed by hand after the apply. Expected values come from the script (three rows: 1, 3, 4; key 2
deleted), not from reconcile."""

from __future__ import annotations

import json
import shutil

import pytest
from pyspark.sql import DataFrame

from mssql_cdc import CdcError, Reconcile, ReconcileResult


def _options(run):
    return {"backend": "fake", "fakePath": run["db"].path, "captureInstance": "dbo_orders"}


def _builder(spark, run, silver=None, report=None):
    b = (Reconcile.builder(spark).options(_options(run))
         .silver(silver or run["silver"]).bronze(run["bronze"]).controlTable(run["control"])
         .factsTable(run["facts"]).keys(["order_id"]))
    return b.reportTable(report) if report else b


def _at(path):
    return f"delta.`{path}`"


def _key_rows(r):
    rows = r.report().where("key IS NOT NULL").select("key", "failure_type", "detail").collect()
    return {json.loads(row.key)["order_id"]: (row.failure_type, json.loads(row.detail)) for row in rows}


def _bucket_rows(r):
    return r.report().where("status IS NOT NULL").select("source_rows", "silver_rows", "status", "hashed").collect()


@pytest.fixture(scope="module")
def drifted_silver(spark, silver_run, tmp_path_factory):
    """A copy of silver (its files, so its Delta log) with silver's control row copied under the copy's
    path, then changed by hand: key 3's status rewritten, key 4 deleted. silver_run's silver stays clean."""
    copy = str(tmp_path_factory.mktemp("drift") / "silver")
    shutil.copytree(silver_run["silver"], copy)
    row = spark.read.format("delta").load(silver_run["control"]).where(f"table_name = '{silver_run['silver']}'").first()
    assert row is not None and row.applied_lsn == silver_run["changes"][-1]
    spark.sql(f"INSERT INTO {_at(silver_run['control'])} (table_name, applied_lsn, snapshot_lsn) "
              f"VALUES ('{copy}', '{row.applied_lsn}', {repr(row.snapshot_lsn) if row.snapshot_lsn else 'NULL'})")
    spark.sql(f"UPDATE {_at(copy)} SET status = 'lost' WHERE order_id = 3")
    spark.sql(f"DELETE FROM {_at(copy)} WHERE order_id = 4")
    return copy


def test_a_clean_silver_reconciles_and_the_report_is_appended(spark, silver_run, tmp_path):
    report = str(tmp_path / "report")
    r = _builder(spark, silver_run, report=report).bucketRows(2).sample(1.0).seed(7).run()
    assert isinstance(r, ReconcileResult)
    assert r.clean() and r.mismatch() == 0 and r.inFlight() == 0
    assert r.match() == r.buckets() >= 1 and r.hashed() >= 1
    assert r.failures() == {} and r.failures("RECORD_DIFF") == 0
    assert r.silverLsn() == silver_run["changes"][-1]            # silver's applied_lsn: the last commit
    assert r.sourceLsn() >= r.silverLsn()                         # canonical hex: text order is LSN order
    history = spark.sql(f"DESCRIBE HISTORY {_at(silver_run['silver'])}").agg({"version": "max"}).first()[0]
    assert r.silverVersion() == history
    buckets = _bucket_rows(r)
    assert len(buckets) == r.buckets()
    assert sum(b.source_rows for b in buckets) == 3 and sum(b.silver_rows for b in buckets) == 3
    assert {b.status for b in buckets} == {"MATCH"} and all(b.hashed for b in buckets)
    assert isinstance(r.report(), DataFrame) and _key_rows(r) == {}
    stored = spark.read.format("delta").load(report)
    assert stored.where(f"run_id = '{r.runId()}'").count() == r.report().count() == r.buckets()
    assert r.runId() in repr(r) and "0 MISMATCH" in r.summary()
    again = _builder(spark, silver_run, report=report).run()     # defaults: one bucket of up to 1,000,000 rows
    assert again.clean() and again.buckets() == 1 and again.runId() != r.runId()
    assert stored.select("run_id").distinct().count() == 2


def test_a_drifted_silver_is_reported_by_key(spark, silver_run, drifted_silver, tmp_path):
    report = str(tmp_path / "report")
    r = _builder(spark, silver_run, silver=drifted_silver, report=report).bucketRows(2).sample(1.0).seed(7).run()
    assert not r.clean()
    assert r.mismatch() >= 1 and r.inFlight() == 0
    assert r.failures() == {"MISSING_TARGET": 1, "RECORD_DIFF": 1}
    assert r.failures("MISSING_TARGET") == 1 and r.failures("MISSING_SOURCE") == 0
    keys = _key_rows(r)
    assert keys.keys() == {3, 4}
    assert keys[4] == ("MISSING_TARGET", {})
    assert keys[3][0] == "RECORD_DIFF" and keys[3][1]["columns"] == "status"
    assert keys[3][1]["silver_start_lsn"].startswith("0x")
    buckets = _bucket_rows(r)
    assert sum(b.source_rows for b in buckets) == 3 and sum(b.silver_rows for b in buckets) == 2
    assert "MISMATCH" in {b.status for b in buckets}
    stored = spark.read.format("delta").load(report).where(f"run_id = '{r.runId()}' AND key IS NOT NULL")
    assert {row.failure_type for row in stored.collect()} == {"MISSING_TARGET", "RECORD_DIFF"}


def test_without_the_sample_a_changed_value_in_a_matching_bucket_goes_unseen(spark, silver_run, drifted_silver):
    # one bucket per key: key 3's bucket keeps its count and key sum, so only a sampled comparison sees it
    r = _builder(spark, silver_run, silver=drifted_silver).bucketRows(1).sample(0).run()
    assert not r.clean() and r.failures() == {"MISSING_TARGET": 1}
    assert set(_key_rows(r)) == {4}


def test_bad_arguments_are_cdc_errors_naming_them(spark, silver_run, tmp_path):
    def fails(builder, code, *words):
        with pytest.raises(CdcError) as e:
            builder.run()
        assert e.value.code == code, str(e.value)
        for w in words:
            assert w in str(e.value)
        assert e.value.java_class.startswith("io.mssqlcdc.errors.")

    b = lambda: _builder(spark, silver_run)  # noqa: E731
    fails(b().bucketRows(0), "MSSQL_CDC-800", "bucketRows must be at least 1, not '0'")
    fails(b().sample(1.5), "MSSQL_CDC-800", "sample must be between 0 and 1, not '1.5'")
    fails(b().sample(float("nan")), "MSSQL_CDC-800", "sample must be between 0 and 1")
    fails(b().silver(silver_run["bronze"]), "MSSQL_CDC-800", "must be different tables")
    fails(b().option("snapshotChunks", "[]"), "MSSQL_CDC-800", "snapshotChunks", "reconcile's own")
    fails(b().silver(""), "MSSQL_CDC-800", "silver must be")
    fails(Reconcile.builder(spark).silver(silver_run["silver"]).bronze(silver_run["bronze"])
          .controlTable(silver_run["control"]), "MSSQL_CDC-801", "pass options")
    fails(b().option("fetchSise", 10), "MSSQL_CDC-101", "fetchSise", "fetchSize")
    fails(b().keys("id"), "MSSQL_CDC-803", "keys [id] are not columns")
    missing = str(tmp_path / "no_silver")
    fails(b().silver(missing), "MSSQL_CDC-804", f"silver {missing} does not exist")


def test_numbers_that_cannot_cross_the_gateway_are_type_errors_naming_the_argument(spark, silver_run):
    b = Reconcile.builder(spark)
    for call, argument in ((lambda: b.bucketRows("10"), "bucketRows"), (lambda: b.bucketRows(1.5), "bucketRows"),
                           (lambda: b.bucketRows(True), "bucketRows"), (lambda: b.bucketRows(2**63), "bucketRows"),
                           (lambda: b.sample("0.5"), "sample"), (lambda: b.sample(False), "sample"),
                           (lambda: b.seed(7.0), "seed")):
        with pytest.raises(TypeError) as e:
            call()
        assert str(e.value).startswith(argument + " must ")
    assert b.bucketRows(10).sample(1).seed(-(2**63)) is b          # ints and floats as the JVM's long and double


def test_a_session_without_a_jvm_gets_a_clear_error():
    class ConnectLike:  # a Spark Connect session has no _jvm: the builder lives in the driver's JVM
        pass

    with pytest.raises(CdcError) as e:
        Reconcile.builder(ConnectLike())
    assert "Spark Connect" in str(e.value) and e.value.code is None
