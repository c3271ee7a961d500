"""The pipeline from Python: ``mssql_cdc.CdcStream`` (bootstrap, bronze and facts exactly once across a
restart, many tables, errors). Later stages (silver, reconcile) take the same ``pipeline_run``;
finalization has its own history (commit times it chooses): test_finalization.py."""

from __future__ import annotations

import pytest

from mssql_cdc import CdcError, CdcStream, CdcStreams
from mssql_cdc.testing import FakeDatabase


def test_bootstrap_then_changes_land_in_bronze_once(spark, pipeline_run):
    bronze = spark.read.format("delta").load(pipeline_run["bronze"])
    snapshot = bronze.where("_operation = 0").collect()
    assert sorted((r.order_id, r.status) for r in snapshot) == [(1, "new"), (2, "new"), (3, "new")]
    stamp = {r._snapshot for r in snapshot}
    assert len(stamp) == 1 and stamp.pop() >= pipeline_run["seeded"]

    insert, update, delete = pipeline_run["changes"]
    changes = sorted((r._start_lsn, r._operation, r.order_id) for r in bronze.where("_operation <> 0").collect())
    assert changes == [(insert, 2, 4), (update, 3, 1), (update, 4, 1), (delete, 1, 2)]


def test_latest_image_per_key_equals_the_source(spark, pipeline_run):
    bronze = spark.read.format("delta").load(pipeline_run["bronze"])
    latest = {}
    for r in sorted(bronze.collect(), key=lambda r: (r._start_lsn, r._command_id or 0, r._seqval or "", r._operation)):
        latest[r.order_id] = None if r._operation == 1 else r.status
    assert {k: v for k, v in latest.items() if v is not None} == pipeline_run["current"]


def test_facts_have_one_row_per_batch_and_the_bootstrap(spark, pipeline_run):
    facts = spark.read.format("delta").load(pipeline_run["facts"])
    events = sorted(r.event for r in facts.where("event IS NOT NULL").collect())
    assert events == ["bootstrap", "snapshot_open"]
    assert facts.where("event = 'bootstrap'").collect()[0].rows == 3
    batches = facts.where("event IS NULL AND rows > 0").orderBy("batch_id").collect()
    assert [(b.rows, b.inserts, b.updates, b.deletes, b.max_lsn) for b in batches] == [
        (1, 1, 0, 0, pipeline_run["changes"][0]),
        (2, 0, 1, 0, pipeline_run["changes"][1]),
        (1, 0, 0, 1, pipeline_run["changes"][2]),
    ]
    assert {b.app_id for b in batches} == {"orders"}
    assert {b.target for b in batches} == {pipeline_run["bronze"]}


def test_a_third_start_with_nothing_new_writes_nothing(spark, pipeline_run):
    before = spark.read.format("delta").load(pipeline_run["bronze"]).count()
    q = pipeline_run["builder"]().toDelta()
    q.awaitTermination()
    assert spark.read.format("delta").load(pipeline_run["bronze"]).count() == before
    facts = spark.read.format("delta").load(pipeline_run["facts"])
    assert facts.where("event = 'bootstrap'").count() == 1


def test_start_many_streams_one_query_per_capture_instance(spark, tmp_path):
    db = FakeDatabase.create(spark, str(tmp_path / "source"))
    for t in ("orders", "customers"):
        db.createTable("dbo", t, "id int", "name varchar(20)").key("id")
        db.enableCdc("dbo", t)
    lo = db.commit(lambda tx: tx.insert("dbo.orders", {"id": 1, "name": "o1"}))
    lc = db.commit(lambda tx: tx.insert("dbo.customers", {"id": 7, "name": "c7"}).insert("dbo.customers", {"id": 8}))
    qs = (CdcStream.builder(spark).option("backend", "fake").option("fakePath", db.path)
          .target(str(tmp_path / "bronze_{ci}")).appId("many-{ci}").checkpoint(str(tmp_path / "chk_{ci}"))
          .trigger("availableNow")
          .startMany(["dbo_orders", "dbo_customers"]))
    assert list(qs) == ["dbo_orders", "dbo_customers"]
    assert CdcStreams.awaitAll(spark, qs) == {}
    got = {ci: sorted((r._start_lsn, r.id) for r in spark.read.format("delta").load(str(tmp_path / f"bronze_{ci}")).collect())
           for ci in qs}
    assert got == {"dbo_orders": [(lo, 1)], "dbo_customers": [(lc, 7), (lc, 8)]}


def test_a_missing_argument_is_a_cdc_error_naming_it(spark, tmp_path):
    with pytest.raises(CdcError) as e:
        CdcStream.builder(spark).option("backend", "fake").option("fakePath", str(tmp_path)) \
            .option("captureInstance", "dbo_orders").appId("x").checkpoint(str(tmp_path / "c")).toDelta()
    assert e.value.code == "MSSQL_CDC-102"
    assert "target" in str(e.value)
    assert e.value.java_class.startswith("io.mssqlcdc.errors.")


def test_a_bad_policy_fails_in_the_setter(spark):
    with pytest.raises(CdcError) as e:
        CdcStream.builder(spark).onDataLoss("ignore")
    assert e.value.code == "MSSQL_CDC-100"
    assert "onDataLoss" in str(e.value) and "'ignore'" in str(e.value)


def test_a_negative_facts_commit_interval_fails_in_the_setter(spark):
    assert CdcStream.builder(spark).factsCommitIntervalSeconds(0) is not None
    with pytest.raises(CdcError) as e:
        CdcStream.builder(spark).factsCommitIntervalSeconds(-1)
    assert e.value.code == "MSSQL_CDC-100"
    assert "factsCommitIntervalSeconds" in str(e.value) and "'-1.0'" in str(e.value)


def test_snapshot_returns_the_stamp_bronze_already_holds(spark, pipeline_run):
    stamp = pipeline_run["builder"]().snapshot(pipeline_run["bronze"], False)
    bronze = spark.read.format("delta").load(pipeline_run["bronze"])
    assert stamp["lsn"] == bronze.where("_operation = 0").first()._snapshot
    assert bronze.where("_operation = 0").count() == 3      # found, not read again


def test_a_session_without_a_jvm_gets_a_clear_error():
    from mssql_cdc import _gateway

    class ConnectLike:  # a Spark Connect session has no _jvm
        pass

    with pytest.raises(CdcError) as e:
        _gateway.jvm(ConnectLike())
    assert "Spark Connect" in str(e.value) and e.value.code is None
