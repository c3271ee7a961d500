"""The whole pipeline from Python: stream → bronze (+ facts) → silver → finalization, on the fake.
``mssql_cdc.CdcStream`` with ``Finalization.tracking`` writes bronze and bronze's verdict,
``mssql_cdc.ApplyChanges`` keeps silver; silver must equal the fake's table (read by the snapshot source
and as the script left it), and silver's verdict must be bronze's. The run is conftest's ``silver_run``."""

from __future__ import annotations

import datetime as dt

import pytest

from mssql_cdc import ApplyChanges, CdcError, Finalization


def _rows(df):
    return {r.order_id: (r.status, r.amount) for r in df.collect()}


def test_silver_equals_the_source_table(spark, silver_run):
    silver = spark.read.format("delta").load(silver_run["silver"])
    assert _rows(silver) == silver_run["current"]                    # as the script left the table
    source = (spark.read.format("mssql_cdc_snapshot").option("backend", "fake")
              .option("fakePath", silver_run["db"].path).option("captureInstance", "dbo_orders").load())
    assert _rows(silver) == _rows(source)                           # as the snapshot source reads it
    assert silver.count() == 3


def test_silver_rows_carry_the_lsn_of_their_last_change(spark, silver_run):
    insert, update, _ = silver_run["changes"]
    silver = {r.order_id: r._start_lsn for r in spark.read.format("delta").load(silver_run["silver"]).collect()}
    assert silver[4] == insert and silver[1] == update
    assert silver[3] < insert                                        # untouched since the bootstrap snapshot


def test_the_first_call_rebuilds_from_the_bootstrap_and_later_ones_apply_changes(silver_run):
    first, second, rerun = silver_run["first"], silver_run["second"], silver_run["rerun"]
    assert first.rebuilt() and first.bronzeFound() and first.appliedLsn() is not None
    assert not second.rebuilt() and second.appliedLsn() == silver_run["changes"][-1]
    assert not rerun.rebuilt() and rerun.appliedLsn() == second.appliedLsn()
    assert "rebuilt=false" in repr(rerun)


def test_silver_verdict_is_bronze_verdict(spark, silver_run):
    # the last commit is at 11:20: every hour before 11:00 is complete in bronze, so in silver too
    c = silver_run["control"]
    assert Finalization.finalizedUntil(spark, c, silver_run["bronze"]) == dt.datetime(2026, 3, 1, 11, 0)
    assert silver_run["second"].finalizedUntil() == dt.datetime(2026, 3, 1, 11, 0)
    assert Finalization.finalizedUntil(spark, c, silver_run["silver"]) == dt.datetime(2026, 3, 1, 11, 0)
    assert Finalization.isFinal(spark, c, silver_run["silver"], dt.datetime(2026, 3, 1, 11, 0))
    assert not Finalization.isFinal(spark, c, silver_run["silver"], dt.datetime(2026, 3, 1, 12, 0))


def test_a_missing_bronze_applies_nothing(spark, tmp_path):
    r = (ApplyChanges.builder(spark).bronze(str(tmp_path / "no_bronze")).target(str(tmp_path / "silver"))
         .captureInstance("dbo_orders").keys("order_id").controlTable(str(tmp_path / "control")).run())
    assert not r.bronzeFound() and r.appliedLsn() is None and r.finalizedUntil() is None


def test_bad_arguments_are_cdc_errors_naming_them(spark, tmp_path):
    def builder():
        return (ApplyChanges.builder(spark).bronze(str(tmp_path / "b")).target(str(tmp_path / "s"))
                .captureInstance("dbo_orders").keys(["order_id"]).controlTable(str(tmp_path / "c")))

    with pytest.raises(CdcError) as e:
        builder().granularity("fortnight").run()
    assert e.value.code is not None and "fortnight" in str(e.value)
    with pytest.raises(CdcError) as e:
        builder().target(str(tmp_path / "b")).run()
    assert e.value.code is not None and "target" in str(e.value)
    with pytest.raises(CdcError) as e:
        (ApplyChanges.builder(spark).target(str(tmp_path / "s")).captureInstance("dbo_orders")
         .controlTable(str(tmp_path / "c")).run())
    assert e.value.code is not None and "bronze" in str(e.value)
