"""The history table from Python (``mssql_cdc.ApplyHistory``, docs/HISTORY.md), over conftest's ``silver_run``
bronze: every version of every row, a point-in-time query equal to the table as the script left it at that time,
a delete's tombstone with ``storeDeletes``, and a rerun that applies nothing."""

from __future__ import annotations

from decimal import Decimal

from mssql_cdc import ApplyHistory


def _as_of(history, t: str):
    rows = history.where(f"__valid_from <= TIMESTAMP_NTZ '{t}' AND (__valid_to IS NULL OR __valid_to > "
                         f"TIMESTAMP_NTZ '{t}') AND NOT __is_deleted").collect()
    return {r.order_id: (r.status, r.amount) for r in rows}


def test_the_history_holds_every_version_and_answers_as_of_a_time(spark, silver_run, tmp_path):
    path = str(tmp_path / "history")

    def apply():
        return (ApplyHistory.builder(spark)
                .bronze(silver_run["bronze"]).target(path).captureInstance("dbo_orders").keys(["order_id"])
                .controlTable(silver_run["control"]).factsTable(silver_run["facts"]).granularity("hour")
                .storeDeletes(True).trackHistoryColumns(["status", "amount"])
                .run())

    first = apply()
    insert, update, delete = silver_run["changes"]
    assert first.rebuilt() and first.bronzeFound() and first.appliedLsn() == delete
    history = spark.read.format("delta").load(path)
    assert _as_of(history, "2026-03-01 12:00:00") == silver_run["current"]
    # before the update of key 1 (10:40) and the delete of key 2 (11:20), after the insert of key 4 (10:05)
    assert _as_of(history, "2026-03-01 10:30:00") == {
        1: ("new", Decimal("1.00")), 2: ("new", Decimal("2.00")), 3: ("new", Decimal("3.00")),
        4: ("new", Decimal("4.00"))}
    # a Row's double-underscore fields by name: PySpark refuses r.__from_lsn as an attribute
    versions = {(r.order_id, r["__from_lsn"]): r for r in history.collect()}
    assert versions[(1, update)].status == "paid" and versions[(1, update)]["__valid_to"] is None
    tombstone = versions[(2, delete)]
    assert tombstone["__is_deleted"] and tombstone["__valid_to"] is None
    count = history.count()

    rerun = apply()
    assert not rerun.rebuilt() and rerun.appliedLsn() == delete
    assert spark.read.format("delta").load(path).count() == count
