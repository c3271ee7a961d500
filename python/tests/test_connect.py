"""The pipeline over Spark Connect, SQL and DataFrame operations only (issue 28 item 4).

A local Spark Connect server (connect_server.py: a classic session of this venv with Spark Connect's plugin,
the bundle, the fake, Delta and the ``cdc`` catalog; it writes the fake's history through the gateway) and a
Connect-only client (connect_client.py, run by the ``pyspark-client`` environment run-tests.sh builds:
no JVM, no py4j): SHOW TABLES, the snapshot, CALL start_stream / apply_changes / finalized_until /
reconcile; the change stream (``readStream.table``) and the ``CHANGES`` clause; and the ``mssql_cdc`` package's
notebook code (notebook_scenario.py: the pipeline, and startMany + backfill of a chunked bootstrap), which the
classic session of the suite runs too: the two must see the same.
Skipped, saying why, when there is no client environment or the server does not start."""

from __future__ import annotations

import json
import os
import queue
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import List, Optional

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


READY_SECONDS = 300  # the server's start and history (60-100 s on a loaded 2-core machine); then it is hung


def _lines(stream, into: "queue.Queue[Optional[str]]") -> None:
    for line in stream:
        into.put(line)
    into.put(None)


@pytest.fixture(scope="module")
def connect_run(tmp_path_factory):
    """One Spark Connect server per run (its start is the cost) and one client run over it; the client's
    JSON. The server must print READY within READY_SECONDS: a hung server fails the test, killed."""
    client_python = _client_python()
    tmp_path = tmp_path_factory.mktemp("connect")
    port = _free_port()
    server = subprocess.Popen([sys.executable, str(HERE / "connect_server.py"), str(tmp_path), str(port)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines: "queue.Queue[Optional[str]]" = queue.Queue()
    threading.Thread(target=_lines, args=(server.stdout, lines), daemon=True).start()
    try:
        seen: List[str] = []
        deadline = time.monotonic() + READY_SECONDS
        ready = None
        while ready is None:
            try:
                line = lines.get(timeout=max(0.1, deadline - time.monotonic()))
            except queue.Empty:
                server.kill()
                pytest.fail(f"the Spark Connect server printed no READY within {READY_SECONDS} s (killed): "
                            + "".join(seen[-20:]))
            if line is None:
                pytest.skip("the Spark Connect server did not start: " + "".join(seen[-20:]))
            seen.append(line)
            if line.startswith("READY "):
                ready = json.loads(line[len("READY "):])
        start = time.monotonic()
        client = subprocess.run([client_python, str(HERE / "connect_client.py"), f"sc://127.0.0.1:{port}",
                                 str(tmp_path / "pipeline"), ready["source"], json.dumps(ready["lsns"])],
                                capture_output=True, text=True, timeout=600)
        elapsed = time.monotonic() - start
        results = [ln for ln in client.stdout.splitlines() if ln.startswith("RESULT ")]
        assert client.returncode == 0 and results, client.stdout + client.stderr
        out = json.loads(results[0][len("RESULT "):])
        out["lsns"] = ready["lsns"]
        print(f"Connect client: {elapsed:.1f} s",
              *[ln for ln in client.stdout.splitlines() if ln.startswith("SECONDS ")])
        return out
    finally:
        server.stdin.close()
        try:
            server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()


def test_pipeline_over_spark_connect(connect_run):
    out = connect_run
    assert out["session"] == "pyspark.sql.connect.session.SparkSession"
    assert out["py4j"] is False
    assert out["tables"] == ["orders"]
    current = [[1, "paid", "1.00"], [3, "new", "3.00"]]
    assert out["snapshot"] == current
    assert out["started"] == {"name": "orders-bronze", "table": "dbo.orders", "capture_instance": "dbo_orders"}
    assert out.get("exception") is None
    assert out["awaited"] == {"done": True, "table_name": out["awaited"]["table_name"], "has_verdict": True,
                              "error": None}
    assert out["awaited"]["table_name"].endswith("/pipeline/bronze")
    assert out["bronze_rows"] == 2
    assert out["applied"]["rebuilt"] is True
    assert out["applied"]["bronze_found"] is True
    assert out["silver"] == current
    assert out["finalized_until"] == out["applied"]["finalized_until"]
    assert out["reconcile"]["clean"] is True, out["reconcile"]["summary"]
    assert out["reconcile"]["mismatch"] == 0
    assert out["reconcile"]["silver_lsn"] == out["applied"]["applied_lsn"]
    assert out["active"] == 0


def test_change_stream_and_changes_clause_over_spark_connect(connect_run):
    insert, update, delete = connect_run["lsns"]
    assert connect_run["stream_rows"] == sorted([
        [1, 2, insert], [2, 2, insert], [3, 2, insert], [1, 3, update], [1, 4, update], [2, 1, delete]])
    assert connect_run["changes"] == sorted([
        [1, "update_preimage", update], [1, "update_postimage", update], [2, "delete", delete]])
    assert connect_run["net_changes"] == [[1, "insert"], [3, "insert"]]


EXPECTED_NOTEBOOK = {
    "query_id_is_text": True,
    "exception": None,
    "bronze": [[1, "paid", 0], [3, "new", 0]],
    "facts_events": ["bootstrap", "snapshot_open"],
    "applied": {"rebuilt": True, "bronze_found": True, "applied_lsn_is_hex": True},
    "silver": [[1, "paid", "1.00"], [3, "new", "3.00"]],
    "finalized_until_is_apply_verdict": True,
    "quoted_table": None,
    "snapshot_lsn_is_hex": True,
    "snapshot_rows": 2,
    "active": 0,
}


def _check_notebook(nb):
    for k, v in EXPECTED_NOTEBOOK.items():
        if k == "applied":
            assert {x: nb[k][x] for x in v} == v, nb
        else:
            assert nb[k] == v, (k, nb)
    assert nb["joined"] is True
    assert nb["verdict_type"] == "datetime"
    assert nb["is_final_after_verdict"] is False
    assert nb["is_final_at_verdict"] is True
    rec = nb["reconcile"]
    assert (rec["clean"], rec["mismatch"], rec["failures"], rec["record_diff"], rec["silver_lsn_is_applied"],
            rec["report_rows"]) == (True, 0, {}, 0, True, True), rec
    assert nb["bad_granularity"]["code"] == "MSSQL_CDC-760", nb["bad_granularity"]
    assert nb["bad_bucket_rows"]["code"] == "MSSQL_CDC-800", nb["bad_bucket_rows"]
    assert nb["bad_option"]["code"] == "MSSQL_CDC-101", nb["bad_option"]
    assert "did you mean 'maxCommitsPerBatch'" in nb["bad_option"]["message"]


def _server_history(spark, tmp_path):
    """A fake with the Connect server's history (connect_server.py): 3 orders, one paid, one deleted."""
    from mssql_cdc.testing import FakeDatabase

    db = FakeDatabase.create(spark, str(tmp_path / "source"))
    db.createTable("dbo", "orders", "order_id int", "status varchar(20)", "amount decimal(18,2)").key("order_id")
    db.enableCdc("dbo", "orders")
    db.commit(lambda tx: [tx.insert("dbo.orders", {"order_id": i, "status": "new", "amount": f"{i}.00"})
                          for i in (1, 2, 3)])
    db.commit(lambda tx: tx.update("dbo.orders", {"order_id": 1, "status": "paid"}))
    db.commit(lambda tx: tx.delete("dbo.orders", [2]))
    return db


def test_the_same_notebook_code_runs_on_classic_and_on_spark_connect(connect_run, spark, tmp_path):
    """notebook_scenario.run on the suite's classic session (the JVM gateway) over a fake with the server's
    history, and on the Connect client (CALL): the same results, the same error codes and messages."""
    sys.path.insert(0, str(HERE))
    import notebook_scenario

    db = _server_history(spark, tmp_path)
    classic = notebook_scenario.run(spark, db.path, str(tmp_path / "notebook"))
    connect = connect_run["notebook"]
    _check_notebook(classic)
    _check_notebook(connect)
    for k in ("applied", "silver", "bronze", "reconcile", "applied_lsn", "bad_granularity", "bad_bucket_rows",
              "bad_option"):
        assert connect[k] == classic[k], (k, connect[k], classic[k])
    # What differs: the server's trackers cannot be listed from a client (joinAll waits through await_tracking;
    # a tracking that started nothing has nothing to wait for); a catalog must exist
    assert connect_run["join_all"] is True
    assert connect_run["trackers"].startswith("TrackingAttachment.trackers is not available over Spark Connect")
    assert "nope" in connect_run["unknown_catalog"], connect_run["unknown_catalog"]


def test_start_many_and_backfill_run_the_same_on_classic_and_on_spark_connect(connect_run, spark, tmp_path):
    """startMany with a chunked bootstrap, backfill() waves, awaitAll and stopAll: through the JVM on the
    classic session, through CALL start_many / backfill and spark.streams on the Connect client."""
    sys.path.insert(0, str(HERE))
    import notebook_scenario

    db = _server_history(spark, tmp_path)
    classic = notebook_scenario.run_many_chunked(spark, db.path, str(tmp_path / "many"))
    connect = connect_run["many"]
    for run in (classic, connect):
        assert run["started"] == ["dbo_orders"], run
        assert run["first_failed"] == {} and run["second_failed"] == {}, run
        assert run["first_wave"]["paused"] is False, run
        assert run["rest"]["done"] is True and run["rest"]["state"] == "done", run
        assert run["rest"]["chunks_done"] == run["rest"]["chunks_total"] >= 2, run
        assert run["same_snapshot"] is True, run
        assert run["snapshot_rows"] == [[1, "paid"], [3, "new"]], run
        assert run["bootstrap_rows"] == 1, run
        assert run["chunk_rows"] == run["rest"]["chunks_total"], run
        assert run["active"] == 0, run
    assert connect == classic
