"""Run by test_routes.py with spark-submit and only the bundle and Delta's jars beside PySpark's own."""

import sys
import tempfile

from pyspark.sql import SparkSession

from mssql_cdc import CdcError, CdcStream

spark = SparkSession.builder.getOrCreate()
jvm = spark._jvm
problems = []

# the relocated driver loads and initialises; nothing registers a com.microsoft one
if jvm.io.mssqlcdc.shaded.mssqljdbc.SQLServerDriver().getMajorVersion() != 13:
    problems.append("relocated mssql-jdbc is not version 13")
try:
    jvm.java.lang.Class.forName("com.microsoft.sqlserver.jdbc.SQLServerDriver")
    problems.append("an unrelocated mssql-jdbc is on the classpath")
except Exception:  # noqa: BLE001 - ClassNotFoundException through Py4J
    pass

# both sources resolve by short name; the fake backend is absent and says which jar to add
for fmt in ("mssql_cdc", "mssql_cdc_snapshot"):
    try:
        reader = spark.readStream if fmt == "mssql_cdc" else spark.read
        reader.format(fmt).option("backend", "fake").option("fakePath", tempfile.mkdtemp()) \
            .option("captureInstance", "dbo_orders").load()
        problems.append(f"{fmt}: load() without the fake succeeded")
    except Exception as e:  # noqa: BLE001
        if "mssql-cdc-fake" not in str(e):
            problems.append(f"{fmt}: unexpected error {e}")

# the pipeline's classes load from the bundle and check their arguments
try:
    CdcStream.builder(spark).snapshotMode("sideways")
    problems.append("snapshotMode('sideways') was accepted")
except CdcError as e:
    if e.code != "MSSQL_CDC-100":
        problems.append(f"unexpected code {e.code}")

# Delta works beside it
path = tempfile.mkdtemp() + "/t"
spark.range(3).write.format("delta").save(path)
if spark.read.format("delta").load(path).count() != 3:
    problems.append("delta round trip")

print("BUNDLE ALONE " + ("OK" if not problems else "FAILED: " + "; ".join(problems)))
spark.stop()
sys.exit(1 if problems else 0)
