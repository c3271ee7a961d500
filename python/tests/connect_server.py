"""Run by test_connect.py in the suite's own venv (classic PySpark): one local Spark session with the bundle,
the fake, Delta and Spark Connect's plugin (the server listens on the given port), the ``cdc`` catalog over
a fake database whose history this script writes through the gateway before it prints READY. It serves
until its stdin closes. Arguments: the work directory, the port."""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from conftest import bundle_jar, delta_jars, fake_jar, spark_conf  # noqa: E402

from pyspark.sql import SparkSession  # noqa: E402

work, port = Path(sys.argv[1]), sys.argv[2]
source = work / "source"
import pyspark  # noqa: E402

connect_jar = next((Path(pyspark.__file__).parent / "jars").glob("spark-connect_*.jar"))
builder = SparkSession.builder.appName("mssql-cdc-connect-server")
for k, v in spark_conf(work).items():
    builder = builder.config(k, v)
jars = [bundle_jar(), fake_jar(), *delta_jars(), connect_jar]
spark = (builder.config("spark.jars", ",".join(str(p) for p in jars))
         .config("spark.plugins", "org.apache.spark.sql.connect.SparkConnectPlugin")
         .config("spark.connect.grpc.binding.address", "127.0.0.1")
         .config("spark.connect.grpc.binding.port", port)
         .config("spark.sql.catalog.cdc", "io.mssqlcdc.catalog.CdcCatalog")
         .config("spark.sql.catalog.cdc.backend", "fake")
         .config("spark.sql.catalog.cdc.fakePath", str(source))
         .getOrCreate())

from mssql_cdc.testing import FakeDatabase  # noqa: E402

db = FakeDatabase.create(spark, str(source))
db.createTable("dbo", "orders", "order_id int", "status varchar(20)", "amount decimal(18,2)").key("order_id")
db.enableCdc("dbo", "orders")
lsns = [db.commit(lambda tx: [tx.insert("dbo.orders", {"order_id": i, "status": "new", "amount": f"{i}.00"})
                              for i in (1, 2, 3)]),
        db.commit(lambda tx: tx.update("dbo.orders", {"order_id": 1, "status": "paid"})),
        db.commit(lambda tx: tx.delete("dbo.orders", [2]))]
print("READY " + json.dumps({"source": str(source), "lsns": [str(x) for x in lsns]}), flush=True)
sys.stdin.read()
spark.stop()
