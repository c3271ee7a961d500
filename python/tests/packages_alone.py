"""Run by test_routes.py with spark-submit --packages: the two published jars resolved from the test
repository load in the JVM (the example pipeline itself runs in the suite's own session, test_routes.py)."""

import sys
import tempfile

from py4j.java_gateway import JavaClass
from pyspark.sql import SparkSession

from mssql_cdc.testing import FakeDatabase

spark = SparkSession.builder.getOrCreate()
jvm = spark._jvm
problems = []

# the bundle: the relocated driver and the pipeline's entry point; the fake: its database class
if jvm.io.mssqlcdc.shaded.mssqljdbc.SQLServerDriver().getMajorVersion() != 13:
    problems.append("relocated mssql-jdbc is not version 13")
for cls in (jvm.io.mssqlcdc.sink.pipeline.CdcStream, jvm.io.mssqlcdc.fake.FakeCdcDatabase):
    if not isinstance(cls, JavaClass):   # Py4J answers a JavaPackage for a name it cannot load
        problems.append(f"{cls} does not load")

# both sources resolve by short name and read the fake (one row)
db = FakeDatabase.create(spark, tempfile.mkdtemp() + "/source")
db.createTable("dbo", "t", "id int").key("id")
db.enableCdc("dbo", "t")
db.commit(lambda tx: tx.insert("dbo.t", {"id": 1}))
rows = spark.read.format("mssql_cdc_snapshot").option("backend", "fake").option("fakePath", db.path) \
    .option("captureInstance", "dbo_t").load().count()
if rows != 1:
    problems.append(f"the snapshot read {rows} rows, not 1")

print("PACKAGES " + ("OK" if not problems else "FAILED: " + "; ".join(problems)))
spark.stop()
sys.exit(1 if problems else 0)
