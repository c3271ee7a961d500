"""One notebook's code with the ``mssql_cdc`` package, run unchanged on a classic session (test_connect.py,
the suite's own session) and on a Spark Connect session (connect_client.py, where the package takes the
``CALL`` route): the pipeline into bronze, silver, the verdict, reconcile, a snapshot, and the errors.
Returns what it saw as plain values, for the test to compare across the two. Imports nothing of the
suite: the Connect client runs it without pytest."""

from __future__ import annotations

import datetime as dt
from typing import Any, Dict


def run(spark: Any, source: str, work: str) -> Dict[str, Any]:
    from mssql_cdc import ApplyChanges, CdcError, CdcStream, Finalization, Reconcile

    p = {k: f"{work}/{k}" for k in ("bronze", "facts", "checkpoint", "control", "silver", "report", "snap")}
    opts = {"backend": "fake", "fakePath": source, "captureInstance": "dbo_orders"}
    out: Dict[str, Any] = {}

    tracking = Finalization.tracking(spark, p["control"], "hour")
    q = (CdcStream.builder(spark).options(opts).option("maxCommitsPerBatch", 1)
         .target(p["bronze"]).appId("orders-nb").checkpoint(p["checkpoint"]).factsTable(p["facts"])
         .factsCommitIntervalSeconds(0).bootstrap(True).trigger("availableNow").attach(tracking)
         .toDelta())
    out["query_id_is_text"] = isinstance(str(q.id), str) and len(str(q.id)) == 36
    q.awaitTermination()
    out["exception"] = None if q.exception() is None else str(q.exception())
    # the tracking writes bronze's verdict after each batch on a thread of its own: wait for its last one
    # (classic: the JVM's TrackingAttachment.joinAll; Connect: CALL await_tracking per started query)
    out["joined"] = tracking.joinAll(300)
    out["bronze"] = sorted([r.order_id, r.status, r._operation]
                           for r in spark.read.format("delta").load(p["bronze"]).collect())
    facts = spark.read.format("delta").load(p["facts"])
    out["facts_events"] = sorted(r.event for r in facts.where("event IS NOT NULL").collect())

    r = (ApplyChanges.builder(spark).bronze(p["bronze"]).target(p["silver"]).captureInstance("dbo_orders")
         .keys(["order_id"]).controlTable(p["control"]).factsTable(p["facts"]).granularity("hour").run())
    verdict = r.finalizedUntil()
    out["applied"] = {"rebuilt": r.rebuilt(), "bronze_found": r.bronzeFound(),
                      "applied_lsn_is_hex": (r.appliedLsn() or "").startswith("0x")}
    out["verdict_type"] = type(verdict).__name__
    out["applied_lsn"] = r.appliedLsn()
    out["silver"] = sorted([s.order_id, s.status, str(s.amount)] for s in
                           spark.read.format("delta").load(p["silver"]).select("order_id", "status", "amount")
                           .collect())
    out["finalized_until_is_apply_verdict"] = Finalization.finalizedUntil(spark, p["control"], p["silver"]) == verdict
    out["is_final_at_verdict"] = (Finalization.isFinal(spark, p["control"], p["silver"], verdict)
                                  if verdict is not None else None)
    out["is_final_after_verdict"] = Finalization.isFinal(
        spark, p["control"], p["silver"], (verdict or dt.datetime(2000, 1, 1)) + dt.timedelta(days=1))
    # a value with quotes and SQL in it is a value (parameter markers over Connect), never SQL
    out["quoted_table"] = Finalization.finalizedUntil(spark, p["control"], "x') OR ('1'='1")

    rec = (Reconcile.builder(spark).options(opts).silver(p["silver"]).bronze(p["bronze"])
           .controlTable(p["control"]).keys(["order_id"]).reportTable(p["report"]).seed(7).run())
    out["reconcile"] = {"clean": rec.clean(), "mismatch": rec.mismatch(), "match": rec.match(),
                        "buckets": rec.buckets(), "failures": rec.failures(),
                        "record_diff": rec.failures("RECORD_DIFF"),
                        "silver_lsn_is_applied": rec.silverLsn() == r.appliedLsn(),
                        "report_rows": rec.report().count() > 0}

    stamp = CdcStream.builder(spark).options(opts).snapshot(p["snap"])
    out["snapshot_lsn_is_hex"] = stamp["lsn"].startswith("0x")
    out["snapshot_rows"] = spark.read.format("delta").load(p["snap"]).count()

    def error(f):
        try:
            f()
        except CdcError as e:
            return {"code": e.code, "message": str(e)}
        return None

    out["bad_granularity"] = error(lambda: ApplyChanges.builder(spark).bronze(p["bronze"]).target(p["silver"])
                                   .captureInstance("dbo_orders").controlTable(p["control"]).granularity("week")
                                   .run())
    out["bad_bucket_rows"] = error(lambda: Reconcile.builder(spark).options(opts).silver(p["silver"])
                                   .bronze(p["bronze"]).controlTable(p["control"]).bucketRows(0).run())
    out["bad_option"] = error(lambda: CdcStream.builder(spark).options(opts).option("maxComitsPerBatch", 1)
                              .target(p["bronze"] + "2").appId("x").checkpoint(p["checkpoint"] + "2")
                              .toDelta())
    out["active"] = len(spark.streams.active)
    return out


def run_many_chunked(spark: Any, source: str, work: str) -> Dict[str, Any]:
    """``startMany`` with a chunked bootstrap, completed by ``backfill()`` waves between two runs, and
    ``CdcStreams.awaitAll``/``stopAll``: on a classic session through the JVM, on a Connect one through
    ``CALL start_many`` and ``CALL backfill`` and the session's ``spark.streams``."""
    from mssql_cdc import CdcStream, CdcStreams

    facts = f"{work}/facts"
    opts = {"backend": "fake", "fakePath": source}

    def streams():
        return (CdcStream.builder(spark).options(opts).target(f"{work}/bronze_{{ci}}").appId("{ci}-many")
                .checkpoint(f"{work}/checkpoint_{{ci}}").factsTable(facts).trigger("availableNow")
                .snapshotMode("chunked").bootstrap(True))

    def backfill():
        return (CdcStream.builder(spark).options(opts).option("captureInstance", "dbo_orders")
                .target(f"{work}/bronze_dbo_orders").appId("dbo_orders-many").factsTable(facts).backfill())

    out: Dict[str, Any] = {}
    first = streams().startMany(["dbo_orders"])
    out["started"] = list(first)
    out["first_failed"] = {ci: e.code for ci, e in CdcStreams.awaitAll(spark, first).items()}
    wave = backfill().chunkRows(1).targetWaveSeconds(0).maxWaves(1).run()
    rest = backfill().minHeadroomHours(0).targetWaveSeconds(0).run()
    out["first_wave"] = {k: wave[k] for k in ("chunks_done", "chunks_total", "done", "paused")}
    out["rest"] = {k: rest[k] for k in ("chunks_done", "chunks_total", "done", "state")}
    out["same_snapshot"] = wave["snapshot"] == rest["snapshot"] and rest["snapshot"].startswith("0x")
    second = streams().startMany(["dbo_orders"])
    out["second_failed"] = {ci: e.code for ci, e in CdcStreams.awaitAll(spark, second, 600).items()}
    CdcStreams.stopAll(spark, second)
    bronze = spark.read.format("delta").load(f"{work}/bronze_dbo_orders")
    out["snapshot_rows"] = sorted([r.order_id, r.status] for r in bronze.where("_operation = 0").collect())
    f = spark.read.format("delta").load(facts)
    out["bootstrap_rows"] = f.where("event = 'bootstrap'").count()
    out["chunk_rows"] = f.where("event = 'snapshot_chunk'").count()
    out["active"] = len(spark.streams.active)
    return out
