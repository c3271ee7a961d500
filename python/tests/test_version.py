"""The Python package's version follows the Maven version; the test pins follow the Maven build's."""

import re
import zipfile
from importlib.metadata import version as dist_version
from pathlib import Path

import mssql_cdc
from conftest import REPO, VERSION, bundle_jar


def pep440(maven_version: str) -> str:
    return re.sub(r"-SNAPSHOT$", ".dev0", maven_version)


def test_package_version_is_the_maven_version():
    assert mssql_cdc.__version__ == pep440(VERSION)
    assert dist_version("mssql-cdc-spark") == pep440(VERSION)


def test_bundle_manifest_names_the_version():
    with zipfile.ZipFile(bundle_jar()) as z:
        manifest = z.read("META-INF/MANIFEST.MF").decode()
    assert f"Implementation-Version: {VERSION}" in manifest


def test_test_pins_follow_the_maven_build():
    import os

    pins = dict(
        line.split("==")
        for line in (REPO / "python" / "requirements-test.txt").read_text().splitlines()
        if "==" in line and not line.startswith("#")
    )
    assert pins["pyspark"] == os.environ.get("MSSQL_CDC_SPARK_VERSION", pins["pyspark"])
    assert pins["delta-spark"] == os.environ.get("MSSQL_CDC_DELTA_VERSION", pins["delta-spark"])
    import pyspark

    assert pyspark.__version__ == pins["pyspark"]
    assert Path(pyspark.__file__).exists()
