"""The finalization API called straight through the Py4J gateway, as a notebook without the package would:
every public method whose overloads Py4J has to tell apart (a Python int for ``join(long)``, a str or a
``Temporal`` for ``isFinal``, a progress JSON string or object, a ``None`` offset). Was
finalization/src/test/python/gateway_smoke.py, run by hand only."""
import os

import pytest


def _strings(spark, *xs):
    gw = spark.sparkContext._gateway
    a = gw.new_array(spark._jvm.java.lang.String, len(xs))
    for i, x in enumerate(xs):
        a[i] = x
    return a


def test_the_finalization_overloads_resolve_from_python(spark, tmp_path):
    jvm, js = spark._jvm, spark._jsparkSession
    F = jvm.io.mssqlcdc.finalization.Finalization
    control = str(tmp_path / "control")
    db = jvm.io.mssqlcdc.fake.FakeCdcDatabase.create(jvm.java.io.File(str(tmp_path / "db")).toPath())
    db.createTable("dbo", "orders", _strings(spark, "order_id int", "status varchar(20)")).key(
        _strings(spark, "order_id"))
    db.enableCdc("dbo", "orders")
    db.idleAt(jvm.java.time.LocalDateTime.parse("2026-03-01T10:05:10"))
    db.idleAt(jvm.java.time.LocalDateTime.parse("2026-03-01T10:07:40"))

    q = (spark.readStream.format("mssql_cdc").option("backend", "fake").option("fakePath", str(tmp_path / "db"))
         .option("captureInstance", "dbo_orders").option("maxCommitsPerBatch", "1").load()
         .writeStream.format("noop").trigger(availableNow=True)
         .option("checkpointLocation", str(tmp_path / "ckpt")).start())
    t = F.track(js, q._jsq, control, "bronze.orders", "minute")
    q.awaitTermination()
    assert t.join(120000) is True                                   # join(long) from a Python int
    assert t.failures() == 0, t.lastError()
    assert F.finalizedUntil(js, control, "bronze.orders").orElse(None).toString() == "2026-03-01T10:07"
    assert F.isFinal(js, control, "bronze.orders", "2026-03-01T12:07:00+02:00") is True   # isFinal(String)
    assert F.isFinal(js, control, "bronze.orders", "2026-03-01 10:08:00") is False
    odt = jvm.java.time.OffsetDateTime.parse("2026-03-01T05:07:00-05:00")
    assert F.isFinal(js, control, "bronze.orders", odt) is True                           # isFinal(Temporal)
    end = F.endOffsetFromProgress(q.lastProgress.json)                                    # (String)
    assert end.orElse(None).commitTsText() == "2026-03-01T10:07:40.000"
    assert F.endOffsetFromProgress(q._jsq.lastProgress()).isPresent()                     # (StreamingQueryProgress)
    off = jvm.io.mssqlcdc.connector.CdcOffset.fromJson(
        '{"lsn": "0x0000002A000001F00003", "commit_ts": "2026-03-01T11:42:00.000"}')
    assert F.advance(js, control, "other", off, "hour").orElse(None).toString() == "2026-03-01T11:00"
    assert F.advance(js, control, "other", None, "hour").orElse(None).toString() == "2026-03-01T11:00"
    assert F.candidate(off, "day").orElse(None).toString() == "2026-03-01T00:00"
    with pytest.raises(Exception, match="MSSQL_CDC-761"):
        F.isFinal(js, control, "bronze.orders", "soon")
    t.stop()
