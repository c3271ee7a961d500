"""Finalization from Python: ``finalized_until`` kept by the pipeline (``CdcStream...attach``), read, gated
on, and advanced by hand (``mssql_cdc.Finalization``)."""

from __future__ import annotations

import datetime as dt

import pytest

from mssql_cdc import CdcError, CdcStream, Finalization
from mssql_cdc.testing import FakeDatabase


@pytest.fixture(scope="module")
def tracked(spark, tmp_path_factory):
    root = tmp_path_factory.mktemp("finalization")
    db = FakeDatabase.create(spark, str(root / "source"))       # server clock UTC
    db.createTable("dbo", "orders", "order_id int", "status varchar(20)").key("order_id")
    db.enableCdc("dbo", "orders")
    db.commitAt(dt.datetime(2026, 3, 1, 10, 5), lambda tx: tx.insert("dbo.orders", {"order_id": 1, "status": "new"}))
    last = db.commitAt(dt.datetime(2026, 3, 1, 11, 20), lambda tx: tx.update("dbo.orders", {"order_id": 1, "status": "paid"}))
    control, bronze = str(root / "control"), str(root / "bronze")
    tracking = Finalization.tracking(spark, control, "hour")
    q = (CdcStream.builder(spark).option("backend", "fake").option("fakePath", db.path)
         .option("captureInstance", "dbo_orders")
         .target(bronze).appId("fin").checkpoint(str(root / "chk")).trigger("availableNow")
         .attach(tracking).toDelta())
    q.awaitTermination()
    assert tracking.joinAll(300)
    return {"control": control, "bronze": bronze, "last": last, "tracking": tracking}


def test_the_pipeline_keeps_the_verdict_at_the_last_complete_hour(spark, tracked):
    # the last commit is at 11:20: every hour before 11:00 is complete, 11:00-12:00 is not yet
    assert Finalization.finalizedUntil(spark, tracked["control"], tracked["bronze"]) == dt.datetime(2026, 3, 1, 11, 0)
    [tracker] = tracked["tracking"].trackers()
    assert tracker.lastVerdict() == dt.datetime(2026, 3, 1, 11, 0) and tracker.failures() == 0


def test_is_final_gates_on_the_period_end(spark, tracked):
    c, t = tracked["control"], tracked["bronze"]
    assert Finalization.isFinal(spark, c, t, dt.datetime(2026, 3, 1, 11, 0))
    assert not Finalization.isFinal(spark, c, t, dt.datetime(2026, 3, 1, 12, 0))
    assert Finalization.isFinal(spark, c, t, dt.datetime(2026, 3, 1, 12, 0, tzinfo=dt.timezone(dt.timedelta(hours=1))))
    assert Finalization.isFinal(spark, c, t, dt.date(2026, 3, 1))
    assert Finalization.isFinal(spark, c, t, "2026-03-01T10:30:00Z")


def test_advance_by_hand_moves_forward_only(spark, tracked):
    c, t = tracked["control"], tracked["bronze"]
    later = {"lsn": tracked["last"], "commit_ts": "2026-03-01T13:45:10.000", "v": 1}
    assert Finalization.advance(spark, c, t, later) == dt.datetime(2026, 3, 1, 13, 0)
    earlier = {"lsn": tracked["last"], "commit_ts": "2026-03-01T09:00:00.000", "v": 1}
    assert Finalization.advance(spark, c, t, earlier) == dt.datetime(2026, 3, 1, 13, 0)
    assert Finalization.finalizedUntil(spark, c, "no.such.table") is None


def test_a_bad_granularity_is_a_cdc_error(spark, tmp_path):
    with pytest.raises(CdcError) as e:
        Finalization.tracking(spark, str(tmp_path / "control"), "fortnight")
    assert e.value.code is not None and "fortnight" in str(e.value)
