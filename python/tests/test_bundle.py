"""What the all-in-one jar holds, and what its published POM asks for (checked on the built files)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
import zipfile

import pytest

from conftest import BUNDLE_ARTIFACT, TEST_REPOSITORY, VERSION, bundle_jar


@pytest.fixture(scope="module")
def entries():
    with zipfile.ZipFile(bundle_jar()) as z:
        return {n: (z.read(n).decode() if n.startswith("META-INF/services/") else None) for n in z.namelist()}


def test_it_carries_every_published_runtime_module(entries):
    for cls in ("io/mssqlcdc/client/CdcClient.class",                 # core
                "io/mssqlcdc/connector/CdcTableProvider.class",       # connector
                "io/mssqlcdc/sink/DeltaSink.class",                   # sink
                "io/mssqlcdc/sink/pipeline/CdcStream.class",
                "io/mssqlcdc/finalization/Finalization.class",        # finalization
                "io/mssqlcdc/silver/ApplyChanges.class",              # silver
                "io/mssqlcdc/reconcile/Reconcile.class",              # reconcile
                "io/mssqlcdc/catalog/CdcCatalog.class"):              # catalog
        assert cls in entries


def test_mssql_jdbc_is_relocated_and_not_registered_with_driver_manager(entries):
    assert "io/mssqlcdc/shaded/mssqljdbc/SQLServerDriver.class" in entries
    assert not [n for n in entries if n.startswith(("com/microsoft/", "microsoft/", "mssql/"))]
    assert "META-INF/services/java.sql.Driver" not in entries


def test_nothing_spark_or_delta_ship_and_no_fake(entries):
    shipped = ("org/apache/spark/", "io/delta/", "org/apache/spark/sql/delta/", "scala/", "com/fasterxml/",
               "org/apache/arrow/", "org/slf4j/", "org/apache/hadoop/", "io/mssqlcdc/fake/",
               "io/mssqlcdc/standin/")                             # test-scope modules stay out
    assert [n for n in entries if n.startswith(shipped)] == []


def test_service_files_register_both_sources_and_the_jdbc_backend(entries):
    sources = entries["META-INF/services/org.apache.spark.sql.sources.DataSourceRegister"].split()
    assert sorted(sources) == ["io.mssqlcdc.connector.CdcSnapshotTableProvider", "io.mssqlcdc.connector.CdcTableProvider"]
    backends = entries["META-INF/services/io.mssqlcdc.client.CdcClientProvider"].split()
    assert backends == ["io.mssqlcdc.client.jdbc.JdbcCdcClientProvider"]


def test_the_published_pom_has_no_dependencies_and_central_metadata():
    if not TEST_REPOSITORY.exists():
        pytest.skip(f"no test repository at {TEST_REPOSITORY} (built with -Dtest.repository.skip?)")
    ns = {"m": "http://maven.apache.org/POM/4.0.0"}
    base = TEST_REPOSITORY / "io" / "mssqlcdc" / BUNDLE_ARTIFACT / VERSION
    poms = sorted(base.glob("*.pom"))
    assert poms, f"no POM deployed under {base}"
    pom = ET.parse(poms[-1]).getroot()
    assert pom.find("m:dependencies", ns) is None
    parent = ET.parse(sorted((TEST_REPOSITORY / "io" / "mssqlcdc" / "mssql-cdc-parent" / VERSION).glob("*.pom"))[-1]).getroot()
    for element in ("m:url", "m:licenses/m:license/m:name", "m:developers/m:developer/m:name", "m:scm/m:connection"):
        assert (parent.findtext(element, namespaces=ns) or "").strip(), element
    assert pom.findtext("m:description", namespaces=ns).strip()
