"""The two ways a PySpark user adds the connector, each in its own spark-submit process (a JVM keeps the
jars it started with): ``--packages`` resolving the published coordinates from the build's test
repository (the two jars load and read the fake there), and the bundle alone beside Spark and Delta
through ``--jars``; and the PySpark example script, run in the suite's own session."""

from __future__ import annotations

import os
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import BUNDLE_ARTIFACT, HERE, REPO, TEST_REPOSITORY, VERSION, bundle_jar, delta_jars, spark_conf


def spark_submit(work: Path, args: list[str]) -> subprocess.CompletedProcess:
    venv_bin = Path(sys.executable).parent
    home = work / "home"            # Ivy must not read the machine's ~/.m2 (BUILD.md pitfall 8)
    home.mkdir(parents=True, exist_ok=True)
    conf = spark_conf(work)
    conf["spark.driver.extraJavaOptions"] += f" -Duser.home={home}"
    conf["spark.jars.ivy"] = str(work / "ivy")
    cmd = [str(venv_bin / "spark-submit")]
    for k, v in conf.items():
        cmd += ["--conf", f"{k}={v}"]
    env = {**os.environ, "PYSPARK_PYTHON": sys.executable, "PYSPARK_DRIVER_PYTHON": sys.executable,
           "SPARK_SUBMIT_OPTS": f"-Duser.home={home}"}
    env.pop("SPARK_HOME", None)
    return subprocess.run(cmd + args, env=env, cwd=work, capture_output=True, text=True, timeout=900)


def explain(result: subprocess.CompletedProcess) -> str:
    return f"exit {result.returncode}\n--- stdout\n{result.stdout[-4000:]}\n--- stderr\n{result.stderr[-8000:]}"


def test_packages_resolves_the_published_coordinates_and_loads_both_jars(tmp_path):
    if not (TEST_REPOSITORY / "io" / "mssqlcdc" / BUNDLE_ARTIFACT).exists():
        pytest.skip(f"no test repository at {TEST_REPOSITORY} (built with -Dtest.repository.skip?)")
    packages = f"io.mssqlcdc:{BUNDLE_ARTIFACT}:{VERSION},io.mssqlcdc:mssql-cdc-fake:{VERSION}"
    result = spark_submit(tmp_path, [
        "--packages", packages, "--repositories", TEST_REPOSITORY.as_uri(),
        "--jars", ",".join(str(p) for p in delta_jars()), str(HERE / "packages_alone.py")])
    assert result.returncode == 0, explain(result)
    assert "PACKAGES OK" in result.stdout, explain(result)
    # Ivy read both POMs (and their parent) from the test repository: two jars, nothing else (the bundle
    # carries core and mssql-jdbc; the fake's POM has core provided)
    jars = sorted(p.name for p in (tmp_path / "ivy" / "jars").glob("*.jar"))
    assert jars == sorted([f"io.mssqlcdc_{BUNDLE_ARTIFACT}-{VERSION}.jar", f"io.mssqlcdc_mssql-cdc-fake-{VERSION}.jar"])


def test_the_bundle_alone_loads_beside_spark_and_delta(tmp_path):
    jars = [bundle_jar(), *delta_jars()]
    result = spark_submit(tmp_path, ["--jars", ",".join(str(p) for p in jars), str(HERE / "bundle_alone.py")])
    assert result.returncode == 0, explain(result)
    assert "BUNDLE ALONE OK" in result.stdout, explain(result)


def test_the_pyspark_example_runs_the_pipeline(spark, tmp_path, capsys):
    """examples/pyspark/cdc_pipeline.py on the fake, in this suite's session (its getOrCreate returns it):
    bootstrap, stream, restart, silver after each run, and silver equal to the source table."""
    spec = importlib.util.spec_from_file_location("cdc_pipeline_example",
                                                  REPO / "examples" / "pyspark" / "cdc_pipeline.py")
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    assert example.main([str(tmp_path / "demo")]) == 0
    out = capsys.readouterr().out
    # 50 rows seeded; the second run updates 5, deletes 50 and inserts 51: 50 rows in the table, bronze
    # holds the 50 snapshot rows and 12 changes (5 updates' before- and after-images, a delete, an insert)
    assert "PYSPARK PIPELINE OK rows=50 bronze=62" in out, out
