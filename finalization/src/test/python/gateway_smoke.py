"""PySpark smoke of the finalization API through the Py4J gateway.

Not run by the build yet (no PySpark environment in it); run by hand after `mvn -B -ntp verify`:

    python3 -m venv /tmp/venv && /tmp/venv/bin/pip install pyspark==4.2.0
    /tmp/venv/bin/python finalization/src/test/python/gateway_smoke.py

It scripts a fake database of idle entries, tracks an AvailableNow stream of it from Python, and calls
every public method whose overloads Py4J has to tell apart.
"""
import glob
import os
import tempfile

from pyspark.sql import SparkSession

wt = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
m2 = os.path.expanduser("~/.m2/repository")
jars = [glob.glob(f"{wt}/{m}/target/mssql-cdc-{m}-0.1.0-SNAPSHOT.jar")[0]
        for m in ("core", "fake", "connector", "sink", "finalization")]
jars += [f"{m2}/io/delta/delta-spark_4.2_2.13/4.4.0/delta-spark_4.2_2.13-4.4.0.jar",
         f"{m2}/io/delta/delta-storage/4.4.0/delta-storage-4.4.0.jar"]
for j in jars:
    assert os.path.exists(j), j
spark = (SparkSession.builder.master("local[2]").config("spark.jars", ",".join(jars))
         .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
         .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
         .config("spark.sql.session.timeZone", "UTC").config("spark.ui.enabled", "false")
         .config("spark.sql.shuffle.partitions", "1").getOrCreate())
jvm, gw = spark._jvm, spark.sparkContext._gateway
js = spark._jsparkSession
F = jvm.io.mssqlcdc.finalization.Finalization
tmp = tempfile.mkdtemp()
control = os.path.join(tmp, "control")

def strings(*xs):
    a = gw.new_array(jvm.java.lang.String, len(xs))
    for i, x in enumerate(xs):
        a[i] = x
    return a

db = jvm.io.mssqlcdc.fake.FakeCdcDatabase.create(jvm.java.io.File(os.path.join(tmp, "db")).toPath())
db.createTable("dbo", "orders", strings("order_id int", "status varchar(20)")).key(strings("order_id"))
db.enableCdc("dbo", "orders")
db.idleAt(jvm.java.time.LocalDateTime.parse("2026-03-01T10:05:10"))
db.idleAt(jvm.java.time.LocalDateTime.parse("2026-03-01T10:07:40"))

q = (spark.readStream.format("mssql_cdc").option("backend", "fake").option("fakePath", os.path.join(tmp, "db"))
     .option("captureInstance", "dbo_orders").option("maxCommitsPerBatch", "1").load()
     .writeStream.format("noop").trigger(availableNow=True)
     .option("checkpointLocation", os.path.join(tmp, "ckpt")).start())
t = F.track(js, q._jsq, control, "bronze.orders", "minute")
q.awaitTermination()
assert t.join(120000) is True                       # join(long) from a Python int
assert t.failures() == 0, t.lastError()
fu = F.finalizedUntil(js, control, "bronze.orders").orElse(None)
assert fu is not None and fu.toString() == "2026-03-01T10:07", fu
assert F.isFinal(js, control, "bronze.orders", "2026-03-01T12:07:00+02:00") is True     # isFinal(String)
assert F.isFinal(js, control, "bronze.orders", "2026-03-01 10:08:00") is False
odt = jvm.java.time.OffsetDateTime.parse("2026-03-01T05:07:00-05:00")
assert F.isFinal(js, control, "bronze.orders", odt) is True                             # isFinal(Temporal)
end = F.endOffsetFromProgress(q.lastProgress.json).orElse(None)                   # (String)
assert F.endOffsetFromProgress(q._jsq.lastProgress()).isPresent()                     # (StreamingQueryProgress)
assert end is not None and end.commitTsText() == "2026-03-01T10:07:40.000", end
off = jvm.io.mssqlcdc.connector.CdcOffset.fromJson('{"lsn": "0x0000002A000001F00003", "commit_ts": "2026-03-01T11:42:00.000"}')
assert F.advance(js, control, "other", off, "hour").orElse(None).toString() == "2026-03-01T11:00"
assert F.advance(js, control, "other", None, "hour").orElse(None).toString() == "2026-03-01T11:00"
assert F.candidate(off, "day").orElse(None).toString() == "2026-03-01T00:00"
try:
    F.isFinal(js, control, "bronze.orders", "soon")
    raise AssertionError("no error")
except Exception as e:
    assert "MSSQL_CDC-761" in str(e), e
att = F.tracking(control, "hour")
print("listeners left:", len(spark._jsparkSession.streams().listListeners()))
print("PYSPARK SMOKE OK")
spark.stop()
