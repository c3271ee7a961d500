"""``backfill()`` and ``seed()`` from Python (issue 26 item 4): a chunked bootstrap completed by backfill
waves, and a target seeded from a DataFrame copy that the stream then continues, on the fake."""
import pytest

from mssql_cdc import CdcStream
from mssql_cdc.testing import FakeDatabase


def _orders(spark, root, rows):
    db = FakeDatabase.create(spark, str(root / "source"))
    db.createTable("dbo", "orders", "order_id int", "status varchar(20)").key("order_id")
    db.enableCdc("dbo", "orders")
    last = db.commit(lambda tx: [tx.insert("dbo.orders", {"order_id": i, "status": "new"}) for i in range(1, rows + 1)])
    return db, last


def _builder(spark, db, root):
    return (CdcStream.builder(spark)
            .option("backend", "fake").option("fakePath", db.path).option("captureInstance", "dbo_orders")
            .option("numPartitions", 2)
            .target(str(root / "bronze")).appId("orders").checkpoint(str(root / "checkpoint"))
            .factsTable(str(root / "facts")).trigger("availableNow"))


@pytest.mark.slow  # two streams and a chunked bootstrap: about 70 s (CI runs it)
def test_backfill_completes_a_chunked_bootstrap(spark, tmp_path):
    db, _ = _orders(spark, tmp_path, 30)
    none = _builder(spark, db, tmp_path).backfill().run()
    assert none["state"] == "no_snapshot"
    assert none["snapshot"] is None and none["chunks_total"] is None and none["paused"] is True
    assert none["reason"] == f"{tmp_path / 'bronze'} has no chunked snapshot opened by orders's stream"

    _builder(spark, db, tmp_path).snapshotMode("chunked").bootstrap(True).toDelta().awaitTermination()
    db.commit(lambda tx: tx.update("dbo.orders", {"order_id": 3, "status": "paid"}))
    # 10 rows a chunk, two partitions: wave 0 reads chunks 0 and 1, then a limit stops the call.
    first = _builder(spark, db, tmp_path).backfill().chunkRows(10).targetWaveSeconds(0).maxWaves(1).run()
    assert (first["state"], first["done"], first["paused"], first["chunks_done"]) == ("running", False, False, 2)
    assert first["reason"] == "stopped after maxWaves=1 wave(s)"
    assert first["chunks_total"] == 3
    rest = _builder(spark, db, tmp_path).backfill().minHeadroomHours(0).targetWaveSeconds(0).run()
    assert (rest["state"], rest["done"], rest["paused"]) == ("done", True, False)
    assert rest["chunks_done"] == rest["chunks_total"] == 3
    assert rest["snapshot"] == first["snapshot"]

    _builder(spark, db, tmp_path).snapshotMode("chunked").bootstrap(True).toDelta().awaitTermination()
    bronze = spark.read.format("delta").load(str(tmp_path / "bronze"))
    assert bronze.where("_operation = 0").count() == 30
    assert bronze.where("_operation = 0").select("order_id").distinct().count() == 30
    facts = spark.read.format("delta").load(str(tmp_path / "facts"))
    assert facts.where("event = 'bootstrap'").count() == 1
    assert facts.where("event = 'snapshot_chunk'").count() == 3


def test_seed_stamps_a_copy_and_the_stream_continues_after_it(spark, tmp_path):
    db, recorded = _orders(spark, tmp_path, 5)
    copy = spark.createDataFrame([(i, "new") for i in range(1, 6)], "ORDER_ID int, status string")
    db.commit(lambda tx: tx.insert("dbo.orders", {"order_id": 6, "status": "late"}))

    offset = _builder(spark, db, tmp_path).seed(copy).asOfLsn(recorded).run()
    assert offset["lsn"] == recorded
    bronze = spark.read.format("delta").load(str(tmp_path / "bronze"))
    assert bronze.where(f"_operation = 0 AND _start_lsn = '{recorded}' AND _snapshot = '{recorded}'").count() == 5
    # A rerun at the same LSN appends nothing and returns the same offset.
    assert _builder(spark, db, tmp_path).seed(copy).asOfLsn(recorded).run()["lsn"] == recorded

    _builder(spark, db, tmp_path).bootstrap(True).toDelta().awaitTermination()
    bronze = spark.read.format("delta").load(str(tmp_path / "bronze"))
    assert bronze.where("_operation = 0").count() == 5
    assert [r[0] for r in bronze.where("_operation <> 0").select("order_id").collect()] == [6]
    facts = spark.read.format("delta").load(str(tmp_path / "facts"))
    assert facts.where(f"event = 'bootstrap' AND max_lsn = '{recorded}'").count() == 1


def test_bad_arguments_are_the_jvms_errors(spark, tmp_path):
    from mssql_cdc import CdcError

    db, _ = _orders(spark, tmp_path, 1)
    with pytest.raises(CdcError) as e:
        _builder(spark, db, tmp_path).backfill().maxWaves(0)
    assert e.value.code == "MSSQL_CDC-100"
    assert str(e.value) == "MSSQL_CDC-100: Option 'maxWaves' must be at least 1, not '0'."
    with pytest.raises(CdcError) as e:
        (CdcStream.builder(spark).option("backend", "fake").option("fakePath", db.path)
         .option("captureInstance", "dbo_orders").target(str(tmp_path / "bronze")).appId("orders").backfill())
    assert e.value.code == "MSSQL_CDC-150"
    assert str(e.value) == ("MSSQL_CDC-150: backfill() needs the stream's factsTable: its event rows hold the"
                            " snapshot's plan and which chunks are in.")
    copy = spark.createDataFrame([(1, "new")], "order_id int, status string")
    with pytest.raises(CdcError) as e:
        _builder(spark, db, tmp_path).seed(copy).run()
    assert e.value.code == "MSSQL_CDC-102"
    assert str(e.value) == ("MSSQL_CDC-102: Option 'asOf' is required (e.g. the time the copy started, or asOfLsn:"
                            " the LSN recorded before it).")
