"""The pipeline over Spark Connect, SQL and DataFrame operations only (issue 28 item 4).

A local Spark Connect server (connect_server.py: a classic session of this venv with Spark Connect's plugin,
the bundle, the fake, Delta and the ``cdc`` catalog; it writes the fake's history through the gateway) and a
Connect-only client (connect_client.py, run by the ``pyspark-client`` environment run-tests.sh builds:
no JVM, no py4j): SHOW TABLES, the snapshot, CALL start_stream / apply_changes / finalized_until /
reconcile. Skipped, saying why, when there is no client environment or the server does not start."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # a server JVM and a client venv: about 80 s (CI runs it)

HERE = Path(__file__).resolve().parent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _client_python() -> str:
    python = os.environ.get("MSSQL_CDC_CONNECT_PYTHON", "")
    if not python or not Path(python).exists():
        pytest.skip("no pyspark-client environment (run-tests.sh builds it; MSSQL_CDC_CONNECT_PYTHON names it)")
    return python


def test_pipeline_over_spark_connect(tmp_path):
    client_python = _client_python()
    port = _free_port()
    server = subprocess.Popen([sys.executable, str(HERE / "connect_server.py"), str(tmp_path), str(port)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        seen = []
        for line in server.stdout:      # READY once the history is written and the plugin listens
            seen.append(line)
            if line.startswith("READY "):
                break
        else:
            pytest.skip("the Spark Connect server did not start: " + "".join(seen[-20:]))
        start = time.monotonic()
        client = subprocess.run([client_python, str(HERE / "connect_client.py"), f"sc://127.0.0.1:{port}",
                                 str(tmp_path / "pipeline")],
                                capture_output=True, text=True, timeout=600)
        elapsed = time.monotonic() - start
        results = [ln for ln in client.stdout.splitlines() if ln.startswith("RESULT ")]
        assert client.returncode == 0 and results, client.stdout + client.stderr
        out = json.loads(results[0][len("RESULT "):])
        print(f"Connect client: {elapsed:.1f} s")
    finally:
        server.stdin.close()
        try:
            server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()

    assert out["session"] == "pyspark.sql.connect.session.SparkSession"
    assert out["py4j"] is False
    assert out["tables"] == ["orders"]
    current = [[1, "paid", "1.00"], [3, "new", "3.00"]]
    assert out["snapshot"] == current
    assert out["started"] == {"name": "orders-bronze", "table": "dbo.orders", "capture_instance": "dbo_orders"}
    assert out.get("exception") is None
    assert out["bronze_rows"] == 2
    assert out["applied"]["rebuilt"] is True
    assert out["applied"]["bronze_found"] is True
    assert out["silver"] == current
    assert out["finalized_until"] == out["applied"]["finalized_until"]
    assert out["reconcile"]["clean"] is True, out["reconcile"]["summary"]
    assert out["reconcile"]["mismatch"] == 0
    assert out["reconcile"]["silver_lsn"] == out["applied"]["applied_lsn"]
    assert out["active"] == 0
