"""``readStream.format("mssql_cdc")`` and ``read.format("mssql_cdc_snapshot")`` from plain PySpark, on the
fake, with the bundle on ``spark.jars``."""

from __future__ import annotations

from pathlib import Path

import pytest
from pyspark.errors import IllegalArgumentException

from mssql_cdc.testing import FakeDatabase


def orders(spark, path: Path) -> FakeDatabase:
    db = FakeDatabase.create(spark, str(path))
    db.createTable("dbo", "orders", "order_id int", "status varchar(20)", "amount decimal(18,2)").key("order_id")
    db.enableCdc("dbo", "orders")
    return db


def read_stream(spark, db: FakeDatabase, **extra: str):
    reader = (spark.readStream.format("mssql_cdc")
              .option("backend", "fake").option("fakePath", db.path).option("captureInstance", "dbo_orders"))
    for k, v in extra.items():
        reader = reader.option(k, v)
    return reader.load()


def run_to_delta(df, out: Path, checkpoint: Path) -> None:
    q = (df.writeStream.format("delta").option("checkpointLocation", str(checkpoint))
         .trigger(availableNow=True).start(str(out)))
    q.awaitTermination()
    assert q.exception() is None


def test_stream_reads_each_commit_once_across_a_restart(spark, tmp_path):
    db = orders(spark, tmp_path / "source")
    l1 = db.commit(lambda tx: tx.insert("dbo.orders", {"order_id": 1, "status": "new", "amount": "9.90"})
                   .insert("dbo.orders", {"order_id": 2, "status": "new", "amount": "5.00"}))
    l2 = db.commit(lambda tx: tx.update("dbo.orders", {"order_id": 1, "status": "paid"}))
    out, chk = tmp_path / "out", tmp_path / "chk"

    run_to_delta(read_stream(spark, db, maxCommitsPerBatch="1"), out, chk)
    first = spark.read.format("delta").load(str(out))
    assert sorted((r._start_lsn, r._operation, r.order_id, r.status) for r in first.collect()) == [
        (l1, 2, 1, "new"), (l1, 2, 2, "new"), (l2, 3, 1, "new"), (l2, 4, 1, "paid")]

    l3 = db.commit(lambda tx: tx.delete("dbo.orders", [2]))
    run_to_delta(read_stream(spark, db, maxCommitsPerBatch="1"), out, chk)
    rows = spark.read.format("delta").load(str(out))
    assert rows.count() == 5
    assert [(r._start_lsn, r._operation, r.order_id) for r in rows.where(f"_start_lsn = '{l3}'").collect()] == [
        (l3, 1, 2)]
    assert [f.name for f in rows.schema.fields][:6] == [
        "_capture_instance", "_start_lsn", "_seqval", "_operation", "_command_id", "_commit_ts"]
    assert str(rows.schema["amount"].dataType) == "DecimalType(18,2)"


def test_snapshot_reads_the_current_rows(spark, tmp_path):
    db = orders(spark, tmp_path / "source")
    db.commit(lambda tx: tx.insert("dbo.orders", {"order_id": 1, "status": "new", "amount": "1.50"})
              .insert("dbo.orders", {"order_id": 2, "status": "new", "amount": "2.50"}))
    last = db.commit(lambda tx: tx.update("dbo.orders", {"order_id": 2, "status": "sent"}))
    snap = (spark.read.format("mssql_cdc_snapshot").option("backend", "fake").option("fakePath", db.path)
            .option("captureInstance", "dbo_orders").load())
    got = sorted((r.order_id, r.status, str(r.amount)) for r in snap.collect())
    assert got == [(1, "new", "1.50"), (2, "sent", "2.50")]
    assert {r._operation for r in snap.collect()} == {0}
    assert {r._start_lsn for r in snap.collect()} >= set() and all(r._start_lsn >= last for r in snap.collect())


def test_a_bad_option_fails_load_naming_it(spark, tmp_path):
    db = orders(spark, tmp_path / "source")
    with pytest.raises(IllegalArgumentException) as e:
        read_stream(spark, db, maxCommitsPerBach="5")
    assert "MSSQL_CDC-101" in str(e.value)
    assert "maxcommitsperbach" in str(e.value).lower() and "maxCommitsPerBatch" in str(e.value)
