"""The two ways a PySpark user adds the connector, each in its own spark-submit process (a JVM keeps the
jars it started with): ``--packages`` resolving the published coordinates from the build's test
repository (the PySpark example script runs the pipeline there), and the bundle alone beside Spark and
Delta through ``--jars``."""

from __future__ import annotations

import os
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


def test_packages_resolves_the_published_coordinates_and_runs_the_example(tmp_path):
    if not (TEST_REPOSITORY / "io" / "mssqlcdc" / BUNDLE_ARTIFACT).exists():
        pytest.skip(f"no test repository at {TEST_REPOSITORY} (built with -Dtest.repository.skip?)")
    packages = f"io.mssqlcdc:{BUNDLE_ARTIFACT}:{VERSION},io.mssqlcdc:mssql-cdc-fake:{VERSION}"
    result = spark_submit(tmp_path, [
        "--packages", packages, "--repositories", TEST_REPOSITORY.as_uri(),
        "--jars", ",".join(str(p) for p in delta_jars()),
        str(REPO / "examples" / "pyspark" / "cdc_pipeline.py"), str(tmp_path / "demo")])
    assert result.returncode == 0, explain(result)
    assert "PYSPARK PIPELINE OK rows=50 " in result.stdout, explain(result)
    # Ivy read both POMs (and their parent) from the test repository: two jars, nothing else (the bundle
    # carries core and mssql-jdbc; the fake's POM has core provided)
    jars = sorted(p.name for p in (tmp_path / "ivy" / "jars").glob("*.jar"))
    assert jars == sorted([f"io.mssqlcdc_{BUNDLE_ARTIFACT}-{VERSION}.jar", f"io.mssqlcdc_mssql-cdc-fake-{VERSION}.jar"])


def test_the_bundle_alone_loads_beside_spark_and_delta(tmp_path):
    jars = [bundle_jar(), *delta_jars()]
    result = spark_submit(tmp_path, ["--jars", ",".join(str(p) for p in jars), str(HERE / "bundle_alone.py")])
    assert result.returncode == 0, explain(result)
    assert "BUNDLE ALONE OK" in result.stdout, explain(result)
