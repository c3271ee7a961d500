"""The pipeline over Spark Connect, SQL and DataFrame operations only (issue 28 item 4).

The suite's own session is the Spark Connect server (conftest.py: Spark Connect's plugin on a local port, the
bundle, the fake, Delta and a ``cdc`` catalog over a fake database whose history the ``connect_history``
fixture writes through the gateway); a Connect-only client (connect_client.py, run by the ``pyspark-client``
environment run-tests.sh builds: no JVM, no py4j) drives it. The README's command runs the pipeline part:
SHOW TABLES, the snapshot, CALL start_stream / await_tracking / apply_changes / finalized_until / reconcile,
the change stream (``readStream.table``) and the ``CHANGES`` clause. The slow set adds the ``mssql_cdc``
package's notebook code (notebook_scenario.py: the pipeline, and startMany + backfill of a chunked bootstrap),
which the classic session runs too: the two must see the same.
Skipped, saying why, when there is no client environment."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Dict

import pytest

HERE = Path(__file__).resolve().parent
CLIENT_SECONDS = 600  # the client's whole part; beyond it the client is hung and the test fails


def _client_python() -> str:
    python = os.environ.get("MSSQL_CDC_CONNECT_PYTHON", "")
    if not python or not Path(python).exists():
        pytest.skip("no pyspark-client environment (run-tests.sh builds it; MSSQL_CDC_CONNECT_PYTHON names it)")
    return python


def _write_history(spark, path: str):
    """The Connect server's history on a fake at ``path``: 3 orders, one paid, one deleted. The database and
    its commit LSNs."""
    from mssql_cdc.testing import FakeDatabase

    db = FakeDatabase.create(spark, path)
    db.createTable("dbo", "orders", "order_id int", "status varchar(20)", "amount decimal(18,2)").key("order_id")
    db.enableCdc("dbo", "orders")
    lsns = [db.commit(lambda tx: [tx.insert("dbo.orders", {"order_id": i, "status": "new", "amount": f"{i}.00"})
                                  for i in (1, 2, 3)]),
            db.commit(lambda tx: tx.update("dbo.orders", {"order_id": 1, "status": "paid"})),
            db.commit(lambda tx: tx.delete("dbo.orders", [2]))]
    return db, [str(x) for x in lsns]


@pytest.fixture(scope="module")
def connect_history(spark, connect_server) -> Dict[str, Any]:
    """The fake the server's ``cdc`` catalog reads, with the history written; its commit LSNs."""
    return {**connect_server, "lsns": _write_history(spark, connect_server["source"])[1]}


def _client(history: Dict[str, Any], work: Path, part: str) -> Dict[str, Any]:
    """One client run of ``part`` over the suite's server; what it printed as its RESULT line."""
    python = _client_python()
    start = time.monotonic()
    client = subprocess.run([python, str(HERE / "connect_client.py"), history["url"], str(work),
                             history["source"], json.dumps(history["lsns"]), part],
                            capture_output=True, text=True, timeout=CLIENT_SECONDS)
    results = [ln for ln in client.stdout.splitlines() if ln.startswith("RESULT ")]
    assert client.returncode == 0 and results, client.stdout + client.stderr
    print(f"Connect client ({part}): {time.monotonic() - start:.1f} s",
          *[ln for ln in client.stdout.splitlines() if ln.startswith("SECONDS ")])
    out = json.loads(results[0][len("RESULT "):])
    out["lsns"] = history["lsns"]
    out["work"] = str(work)
    return out


@pytest.fixture(scope="module")
def connect_run(connect_history, tmp_path_factory):
    return _client(connect_history, tmp_path_factory.mktemp("connect-pipeline"), "pipeline")


@pytest.fixture(scope="module")
def connect_notebook_run(connect_history, tmp_path_factory):
    return _client(connect_history, tmp_path_factory.mktemp("connect-notebook"), "notebook")


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
    assert out["awaited"]["table_name"] == out["work"] + "/bronze"
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


@pytest.mark.slow  # the notebook code twice, on both sessions: about 40 s (CI runs it)
def test_the_same_notebook_code_runs_on_classic_and_on_spark_connect(connect_notebook_run, spark, tmp_path):
    """notebook_scenario.run on the suite's classic session (the JVM gateway) over a fake with the server's
    history, and on the Connect client (CALL): the same results, the same error codes and messages."""
    sys.path.insert(0, str(HERE))
    import notebook_scenario

    db, _ = _write_history(spark, str(tmp_path / "source"))
    classic = notebook_scenario.run(spark, db.path, str(tmp_path / "notebook"))
    connect = connect_notebook_run["notebook"]
    _check_notebook(classic)
    _check_notebook(connect)
    for k in ("applied", "silver", "bronze", "reconcile", "applied_lsn", "bad_granularity", "bad_bucket_rows",
              "bad_option"):
        assert connect[k] == classic[k], (k, connect[k], classic[k])
    # What differs: the server's trackers cannot be listed from a client (joinAll waits through await_tracking;
    # a tracking that started nothing has nothing to wait for); a catalog must exist
    assert connect_notebook_run["join_all"] is True
    assert connect_notebook_run["trackers"].startswith(
        "TrackingAttachment.trackers is not available over Spark Connect")
    assert "nope" in connect_notebook_run["unknown_catalog"], connect_notebook_run["unknown_catalog"]


@pytest.mark.slow  # startMany, backfill waves and a second start on both sessions (CI runs it)
def test_start_many_and_backfill_run_the_same_on_classic_and_on_spark_connect(connect_notebook_run, spark,
                                                                               tmp_path):
    """startMany with a chunked bootstrap, backfill() waves, awaitAll and stopAll: through the JVM on the
    classic session, through CALL start_many / backfill and spark.streams on the Connect client."""
    sys.path.insert(0, str(HERE))
    import notebook_scenario

    db, _ = _write_history(spark, str(tmp_path / "source"))
    classic = notebook_scenario.run_many_chunked(spark, db.path, str(tmp_path / "many"))
    connect = connect_notebook_run["many"]
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
