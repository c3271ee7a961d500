"""Fixtures of the PySpark suite: one real local PySpark session with the built jars (``spark.jars``),
and the paths the Maven build hands over (python/pom.xml sets the environment)."""

from __future__ import annotations

import os
import shutil
import socket
import tempfile
from pathlib import Path
from typing import Dict, Iterator, List

import pytest

REPO = Path(os.environ.get("MSSQL_CDC_REPO_ROOT", Path(__file__).resolve().parents[2]))
HERE = Path(__file__).resolve().parent


def _maven_version() -> str:
    env = os.environ.get("MSSQL_CDC_VERSION")
    if env:
        return env
    import xml.etree.ElementTree as ET

    ns = {"m": "http://maven.apache.org/POM/4.0.0"}
    return ET.parse(REPO / "pom.xml").getroot().find("m:version", ns).text  # type: ignore[union-attr]


VERSION = _maven_version()
JARS = Path(os.environ.get("MSSQL_CDC_JARS", REPO / "python" / "target" / "jars"))
TEST_REPOSITORY = Path(os.environ.get("MSSQL_CDC_TEST_REPOSITORY", REPO / "target" / "test-repository"))
BUNDLE_ARTIFACT = "mssql-cdc-spark_2.13"


def jar(prefix: str) -> Path:
    found = sorted(JARS.glob(f"{prefix}-*.jar"))
    if len(found) != 1:
        raise AssertionError(
            f"expected one {prefix}-*.jar in {JARS}, found {[p.name for p in found]}: build the jars first "
            "(mvn -B -ntp -pl python -am verify)"
        )
    return found[0]


def bundle_jar() -> Path:
    return jar(BUNDLE_ARTIFACT)


def fake_jar() -> Path:
    return jar("mssql-cdc-fake")


def delta_jars() -> List[Path]:
    return sorted(p for p in JARS.glob("*.jar") if not p.name.startswith("mssql-cdc-"))


def spark_conf(work: Path) -> Dict[str, str]:
    """What every session of the suite sets (the subprocess tests too): local, quiet, Delta, small."""
    return {
        "spark.master": "local[2]",
        "spark.driver.host": "127.0.0.1",
        "spark.driver.bindAddress": "127.0.0.1",
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.shuffle.partitions": "1",
        "spark.default.parallelism": "2",
        "spark.sql.session.timeZone": "UTC",
        "spark.sql.extensions": "io.delta.sql.DeltaSparkSessionExtension",
        "spark.sql.catalog.spark_catalog": "org.apache.spark.sql.delta.catalog.DeltaCatalog",
        "spark.databricks.delta.snapshotPartitions": "1",
        "spark.sql.codegen.wholeStage": "false",
        "spark.sql.warehouse.dir": str(work / "warehouse"),
        "spark.driver.extraJavaOptions": f"-Dlog4j2.configurationFile={HERE / 'log4j2.properties'} "
        f"-Dderby.system.home={work / 'derby'}",
    }


@pytest.fixture(scope="session")
def work() -> Iterator[Path]:
    d = Path(tempfile.mkdtemp(prefix="mssql-cdc-pytest-"))
    yield d
    shutil.rmtree(d, ignore_errors=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def connect_jar() -> Path:
    """Spark Connect's server plugin, which the ``pyspark`` wheel carries."""
    import pyspark

    return next((Path(pyspark.__file__).parent / "jars").glob("spark-connect_*.jar"))


@pytest.fixture(scope="session")
def connect_server(work: Path) -> Dict[str, str]:
    """Where the suite's session serves Spark Connect (test_connect.py's clients): its URL, and the fake
    database the ``cdc`` catalog reads (its history is the test's to write)."""
    return {"url": f"sc://127.0.0.1:{free_port()}", "source": str(work / "connect" / "source")}


@pytest.fixture(scope="session")
def spark(work: Path, connect_server: Dict[str, str]):
    """The bundle, the fake and Delta through ``spark.jars``: the plain-PySpark route of docs/PYSPARK.md. The
    same session is the Spark Connect server of test_connect.py (Spark Connect's plugin on a local port and a
    ``cdc`` catalog over a fake): one JVM for both, not a second one to start."""
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.appName("mssql-cdc-pytest")
    for k, v in spark_conf(work).items():
        builder = builder.config(k, v)
    jars = [bundle_jar(), fake_jar(), *delta_jars(), connect_jar()]
    session = (builder.config("spark.jars", ",".join(str(p) for p in jars))
               .config("spark.plugins", "org.apache.spark.sql.connect.SparkConnectPlugin")
               .config("spark.connect.grpc.binding.address", "127.0.0.1")
               .config("spark.connect.grpc.binding.port", connect_server["url"].rsplit(":", 1)[1])
               .config("spark.sql.catalog.cdc", "io.mssqlcdc.catalog.CdcCatalog")
               .config("spark.sql.catalog.cdc.backend", "fake")
               .config("spark.sql.catalog.cdc.fakePath", connect_server["source"])
               .getOrCreate())
    yield session
    session.stop()


@pytest.fixture(scope="module")
def pipeline_run(spark, tmp_path_factory):
    """A ``CdcStream`` run from Python: a scripted history on the fake (3 rows before the bootstrap, then 3
    commits), ``bootstrap(True)`` into a bronze path with a facts path, ``availableNow`` and
    ``maxCommitsPerBatch=1``. Returns the paths and the history as the script made it (LSNs the fake
    returned), for the pipeline's later stages (silver, reconcile) to be checked against too."""
    from mssql_cdc import CdcStream
    from mssql_cdc.testing import FakeDatabase

    root = tmp_path_factory.mktemp("pipeline")
    db = FakeDatabase.create(spark, str(root / "source"))
    db.createTable("dbo", "orders", "order_id int", "status varchar(20)", "amount decimal(18,2)").key("order_id")
    db.enableCdc("dbo", "orders")
    seeded = db.commit(lambda tx: [tx.insert("dbo.orders", {"order_id": i, "status": "new", "amount": f"{i}.00"})
                                   for i in (1, 2, 3)])
    paths = {k: str(root / k) for k in ("bronze", "facts", "checkpoint")}

    def builder():
        return (CdcStream.builder(spark)
                .option("backend", "fake").option("fakePath", db.path).option("captureInstance", "dbo_orders")
                .option("maxCommitsPerBatch", 1)
                .target(paths["bronze"]).appId("orders").checkpoint(paths["checkpoint"])
                .factsTable(paths["facts"]).bootstrap(True).trigger("availableNow"))

    q = builder().toDelta()
    q.awaitTermination()
    changes = [
        db.commit(lambda tx: tx.insert("dbo.orders", {"order_id": 4, "status": "new", "amount": "4.00"})),
        db.commit(lambda tx: tx.update("dbo.orders", {"order_id": 1, "status": "paid"})),
        db.commit(lambda tx: tx.delete("dbo.orders", [2])),
    ]
    q2 = builder().toDelta()
    q2.awaitTermination()
    return {**paths, "db": db, "seeded": seeded, "changes": changes, "builder": builder,
            "queries": (q, q2), "current": {1: "paid", 3: "new", 4: "new"}}


@pytest.fixture(scope="session")
def silver_run(spark, tmp_path_factory):
    """The whole pipeline from Python, with silver: a scripted history on the fake (3 rows, then an insert,
    an update and a delete at known times), ``CdcStream`` with ``Finalization.tracking`` into bronze, facts
    and the control table, ``ApplyChanges`` into silver after each of the two stream runs (and once more).
    Shared by the silver and reconcile tests (session scope: built once; no test changes its rows, and
    test_reconcile.py only adds a control row for its own copy of silver)."""
    import datetime as dt
    from decimal import Decimal

    from mssql_cdc import ApplyChanges, CdcStream, Finalization
    from mssql_cdc.testing import FakeDatabase

    root = tmp_path_factory.mktemp("silver")
    db = FakeDatabase.create(spark, str(root / "source"))       # server clock UTC
    db.createTable("dbo", "orders", "order_id int", "status varchar(20)", "amount decimal(18,2)").key("order_id")
    db.enableCdc("dbo", "orders")
    db.commitAt(dt.datetime(2026, 3, 1, 9, 0), lambda tx: [
        tx.insert("dbo.orders", {"order_id": i, "status": "new", "amount": f"{i}.00"}) for i in (1, 2, 3)])
    p = {k: str(root / k) for k in ("bronze", "facts", "checkpoint", "control", "silver")}

    def stream():
        tracking = Finalization.tracking(spark, p["control"], "hour")
        q = (CdcStream.builder(spark)
             .option("backend", "fake").option("fakePath", db.path).option("captureInstance", "dbo_orders")
             .option("maxCommitsPerBatch", 1)
             .target(p["bronze"]).appId("orders").checkpoint(p["checkpoint"]).factsTable(p["facts"])
             .bootstrap(True).trigger("availableNow").attach(tracking).toDelta())
        q.awaitTermination()
        assert tracking.joinAll(300)

    def apply():
        return (ApplyChanges.builder(spark)
                .bronze(p["bronze"]).target(p["silver"]).captureInstance("dbo_orders").keys(["order_id"])
                .controlTable(p["control"]).factsTable(p["facts"]).granularity("hour")
                .run())

    stream()
    first = apply()
    changes = [
        db.commitAt(dt.datetime(2026, 3, 1, 10, 5),
                    lambda tx: tx.insert("dbo.orders", {"order_id": 4, "status": "new", "amount": "4.00"})),
        db.commitAt(dt.datetime(2026, 3, 1, 10, 40),
                    lambda tx: tx.update("dbo.orders", {"order_id": 1, "status": "paid", "amount": "1.50"})),
        db.commitAt(dt.datetime(2026, 3, 1, 11, 20), lambda tx: tx.delete("dbo.orders", [2])),
    ]
    stream()
    second = apply()
    rerun = apply()
    return {**p, "db": db, "changes": changes, "first": first, "second": second, "rerun": rerun,
            "current": {1: ("paid", Decimal("1.50")), 3: ("new", Decimal("3.00")), 4: ("new", Decimal("4.00"))}}
