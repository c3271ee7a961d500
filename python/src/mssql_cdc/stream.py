"""``CdcStream``: the pipeline entry point (JVM ``io.mssqlcdc.sink.pipeline.CdcStream``).

Every method forwards to the JVM builder of the same name; arguments and their checks are the JVM's
(docs/OPTIONS.md, "Pipeline arguments"; docs/PIPELINE.md). Nothing here decides anything. On a Spark
Connect session the setters record their arguments and ``toDelta``, ``startMany``, ``snapshot`` and
``backfill().run()`` call the catalog's ``start_stream``, ``start_many``, ``snapshot`` and ``backfill``
procedures with them (docs/PYSPARK.md, "Spark Connect").
"""

from __future__ import annotations

import json
import time
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql.streaming import StreamingQuery

from mssql_cdc import _connect, _gateway
from mssql_cdc.errors import CdcError

_CDC_STREAM = "io.mssqlcdc.sink.pipeline.CdcStream"
_CDC_STREAMS = "io.mssqlcdc.sink.pipeline.CdcStreams"


class CdcStreamBuilder(_gateway.JvmBuilder):
    """A ``CdcStream.Builder`` on the JVM. Setters return ``self``; ``toDelta()`` starts the query."""

    def option(self, key: str, value: Union[str, int, float, bool]) -> "CdcStreamBuilder":
        """A reader option of ``format("mssql_cdc")`` (docs/OPTIONS.md). Booleans become
        ``"true"``/``"false"``, numbers their text, as ``DataStreamReader.option`` does."""
        text = str(value).lower() if isinstance(value, bool) else str(value)
        return self._set("option", key, text)

    def options(self, options: Mapping[str, str]) -> "CdcStreamBuilder":
        """Reader options, as :meth:`option` one by one."""
        for k, v in options.items():
            self.option(k, v)
        return self

    def target(self, name_or_path: str) -> "CdcStreamBuilder":
        """The bronze table: a name (``bronze.orders``) or a path. Required."""
        return self._set("target", name_or_path)

    def appId(self, app_id: str) -> "CdcStreamBuilder":  # noqa: N802 - the JVM's name
        """The stream's identity, stable for the checkpoint's lifetime (Delta ``txnAppId``). Required."""
        return self._set("appId", app_id)

    def checkpoint(self, checkpoint: str) -> "CdcStreamBuilder":
        """The Spark checkpoint; generation n runs in ``<checkpoint>/_generations/<n>``. Required."""
        return self._set("checkpoint", checkpoint)

    def factsTable(self, name_or_path: str) -> "CdcStreamBuilder":  # noqa: N802
        """The facts table: one row per micro-batch and per event."""
        return self._set("factsTable", name_or_path)

    def trigger(self, trigger: str) -> "CdcStreamBuilder":
        """``availableNow``, ``once`` or ``processingTime=1 minute``."""
        return self._set("trigger", trigger)

    def queryName(self, name: str) -> "CdcStreamBuilder":  # noqa: N802
        """The query's name (default: the sink id, ``<appId>`` or ``<appId>.g<n>``)."""
        return self._set("queryName", name)

    def bootstrap(self, bootstrap: bool = True) -> "CdcStreamBuilder":
        """Snapshot the table into the target once, then stream from the snapshot's stamp."""
        return self._set("bootstrap", bool(bootstrap))

    def onDataLoss(self, policy: str) -> "CdcStreamBuilder":  # noqa: N802
        """``fail`` (default) or ``resnapshot`` (a new snapshot in the next checkpoint generation)."""
        return self._set("onDataLoss", policy)

    def resnapshotIntervalDays(self, days: float) -> "CdcStreamBuilder":  # noqa: N802
        """At most one automatic re-snapshot per this many days (default 7); 0 re-snapshots now."""
        return self._set("resnapshotIntervalDays", float(days))

    def factsCommitIntervalSeconds(self, seconds: float) -> "CdcStreamBuilder":  # noqa: N802
        """How often at most steady batches' facts rows are committed, in seconds (default 0: as soon as the last commit ended)."""
        return self._set("factsCommitIntervalSeconds", float(seconds))

    def snapshotOnSwitch(self, snapshot_on_switch: bool = True) -> "CdcStreamBuilder":  # noqa: N802
        """After the batch that first reads a newer capture instance, append a full snapshot."""
        return self._set("snapshotOnSwitch", bool(snapshot_on_switch))

    def snapshotMode(self, mode: str) -> "CdcStreamBuilder":  # noqa: N802
        """How bootstrap and re-snapshots read the table: ``full`` (default) or ``chunked``
        (the JVM builder's ``snapshot(String)``)."""
        return self._set("snapshot", mode)

    def attach(self, attachment: Any) -> "CdcStreamBuilder":
        """Something that follows the started query: a wrapper with a ``_jobj`` (e.g. a future
        ``Finalization.tracking(...)``) or a JVM ``StreamAttachment``."""
        return self._set("attach", getattr(attachment, "_jobj", attachment))

    def toDelta(self) -> StreamingQuery:  # noqa: N802
        """Checks every argument, bootstraps or re-snapshots as needed, and starts the query
        (non-blocking). Returns pyspark's ``StreamingQuery`` over the JVM query (over Spark Connect:
        ``spark.streams.get`` of the started query's id)."""
        if self._rec is not None:
            row = self._call("start_stream", self._stream_params(table=self._table(), **self._targets()))[0]
            self._tracked([row["query_id"]])
            return _connect_query(self._spark, row)
        with _gateway.translated(self._spark):
            return StreamingQuery(self._j.toDelta())

    # ---- the Spark Connect route: the recorded settings as the procedures' parameters ----------

    _STREAM_SETTINGS = {"factsTable": "factsTable", "trigger": "trigger", "queryName": "queryName",
                        "bootstrap": "bootstrap", "onDataLoss": "onDataLoss",
                        "resnapshotIntervalDays": "resnapshotIntervalDays",
                        "factsCommitIntervalSeconds": "factsCommitIntervalSeconds",
                        "snapshotOnSwitch": "snapshotOnSwitch", "snapshot": "snapshot"}

    def _table(self) -> str:
        assert self._rec is not None
        table = self._rec.table()
        if table is None:
            raise CdcError(None, "Option 'captureInstance' is required: over Spark Connect it names the catalog "
                           "table to read (its capture instance), e.g. .option(\"captureInstance\", \"dbo_orders\").",
                           None)
        return table

    def _targets(self) -> Dict[str, Any]:
        assert self._rec is not None
        st = self._rec.settings
        return {"bronze": st.get("target"), "checkpoint": st.get("checkpoint"), "appId": st.get("appId")}

    def _stream_params(self, **first: Any) -> Dict[str, Any]:
        assert self._rec is not None
        st = self._rec.settings
        params: Dict[str, Any] = dict(first)
        for method, param in self._STREAM_SETTINGS.items():
            params[param] = st.get(method)
        attachment = st.get("attach")
        if attachment is not None:
            if not isinstance(attachment, _ConnectTracking):
                raise _connect.unsupported(f"attach({attachment!r})", "attach Finalization.tracking(spark, ...) only")
            params["controlTable"], params["granularity"] = attachment.control_table, attachment.granularity
        params["options"] = self._rec.reader_options()
        return params

    def _tracked(self, query_ids: Sequence[str]) -> None:
        """Tells the attached tracking (over Spark Connect) which queries it follows, for its joinAll."""
        assert self._rec is not None and self._catalog is not None
        attachment = self._rec.settings.get("attach")
        if isinstance(attachment, _ConnectTracking):
            attachment._record(self._catalog, query_ids)

    def snapshot(self, target: str, resnapshot: bool = False) -> Dict[str, Any]:
        """A full snapshot of the table into ``target`` (unless ``resnapshot``, the newest one the target
        holds is returned and nothing is read). Returns its stamp: the offset JSON as a dict
        (``{"lsn": "0x…", "commit_ts": "…", "v": 1}``; over Spark Connect the ``snapshot`` procedure's
        ``lsn`` and ``commit_ts``)."""
        if self._rec is not None:
            st = self._rec.settings
            row = self._call("snapshot", {"table": self._table(), "bronze": target, "resnapshot": bool(resnapshot),
                                          "appId": st.get("appId"), "factsTable": st.get("factsTable"),
                                          "options": self._rec.reader_options()})[0]
            return {"lsn": row["lsn"],
                    "commit_ts": None if row["commit_ts"] is None else row["commit_ts"].isoformat()}
        with _gateway.translated(self._spark):
            return json.loads(str(self._j.snapshot(target, bool(resnapshot)).json()))

    def backfill(self) -> "Backfill":
        """The chunked snapshot's waves beside the running stream (docs/PIPELINE.md, "Chunked"): set its
        limits on the returned builder, then ``run()``; call again until the state is ``done``. Needs the
        builder's ``target``, ``appId``, ``factsTable`` and reader options, as the stream has them."""
        if self._rec is not None:
            b = Backfill(self._spark, None, self._catalog)
            b._stream = self
            return b
        with _gateway.translated(self._spark):
            return Backfill(self._spark, self._j.backfill())

    def seed(self, copy: DataFrame) -> "Seed":
        """Seeds ``target`` with ``copy`` (a DataFrame copy of the table, e.g. an export) as its snapshot,
        stamped ``asOfLsn`` or ``asOf``: set one on the returned builder, then ``run()``; the stream then
        starts from it with ``bootstrap(True)``."""
        if self._rec is not None:
            raise _connect.unsupported("CdcStreamBuilder.seed", "seed on a classic session (a job on the cluster)")
        with _gateway.translated(self._spark):
            return Seed(self._spark, self._j.seed(copy._jdf))

    def startMany(  # noqa: N802
        self, capture_instances: Union[Sequence[str], Mapping[str, Mapping[str, str]]]
    ) -> Dict[str, StreamingQuery]:
        """One stream per capture instance; ``target``, ``appId`` and ``checkpoint`` (and ``queryName``)
        are templates with ``{ci}``. A mapping gives reader option overrides per instance. Returns the
        queries by capture instance, in the given order."""
        if self._rec is not None:
            if isinstance(capture_instances, Mapping):
                raise _connect.unsupported("startMany with per-instance option overrides",
                                           "pass a list, or start each with its options through toDelta()")
            params = self._stream_params(tables=list(capture_instances), **self._targets())
            rows = self._call("start_many", params)
            self._tracked([r["query_id"] for r in rows])
            return {str(r["capture_instance"]): _connect_query(self._spark, r) for r in rows}
        arg: Any
        if isinstance(capture_instances, Mapping):
            arg = _gateway.jvm(self._spark).java.util.LinkedHashMap()
            for ci, overrides in capture_instances.items():
                arg.put(ci, dict(overrides))
        else:
            arg = _gateway.jvm(self._spark).java.util.ArrayList()
            for ci in capture_instances:
                arg.add(ci)
        with _gateway.translated(self._spark):
            jqueries = self._j.startMany(arg)
        return {str(e.getKey()): StreamingQuery(e.getValue()) for e in jqueries.entrySet().toArray()}


class Backfill(_gateway.JvmBuilder):
    """A ``Backfill`` on the JVM (``CdcStream.Builder.backfill()``): setters return ``self``, ``run()``
    reads waves until the snapshot is done or a limit stops it."""

    def chunkRows(self, rows: int) -> "Backfill":  # noqa: N802 - the JVM's name
        """Rows per chunk when the snapshot is first planned (default 1,000,000); ignored once planned."""
        return self._set("chunkRows", int(rows))

    def maxWaves(self, waves: int) -> "Backfill":  # noqa: N802
        """Stop after this many waves (state ``running``); the next call resumes."""
        return self._set("maxWaves", int(waves))

    def maxSeconds(self, seconds: float) -> "Backfill":  # noqa: N802
        """Take no new wave after this many seconds (state ``running``)."""
        return self._set("maxSeconds", float(seconds))

    def minHeadroomHours(self, hours: float) -> "Backfill":  # noqa: N802
        """Take no wave while the stream's retention headroom is below this (``waiting_headroom``)."""
        return self._set("minHeadroomHours", float(hours))

    def isolation(self, level: str) -> "Backfill":
        """``snapshot`` or ``readCommitted`` (default: the stream's ``isolationLevel``)."""
        return self._set("isolation", level)

    def targetWaveSeconds(self, seconds: float) -> "Backfill":  # noqa: N802
        """How long a wave should read (default 300; 0 = one round of ``numPartitions`` chunks)."""
        return self._set("targetWaveSeconds", float(seconds))

    def run(self) -> Dict[str, Any]:
        """Runs waves. Returns the reference's ``BackfillStatus``: ``snapshot`` (S, or None),
        ``chunks_done``, ``chunks_total`` (None until planned), ``done``, ``paused``, ``state``
        (``done``, ``running``, ``waiting_headroom``, ``waiting_metrics``, ``no_snapshot``) and
        ``reason``."""
        if self._rec is not None:
            stream = self._stream
            sst, st_ = stream._rec.settings, self._rec.settings
            row = self._call("backfill", {
                "table": stream._table(), "bronze": sst.get("target"), "appId": sst.get("appId"),
                "factsTable": sst.get("factsTable"), "chunkRows": st_.get("chunkRows"),
                "maxWaves": st_.get("maxWaves"), "maxSeconds": st_.get("maxSeconds"),
                "minHeadroomHours": st_.get("minHeadroomHours"), "isolation": st_.get("isolation"),
                "targetWaveSeconds": st_.get("targetWaveSeconds"), "options": stream._rec.reader_options()})[0]
            return {"snapshot": row["snapshot"], "chunks_done": int(row["chunks_done"]),
                    "chunks_total": None if row["chunks_total"] is None else int(row["chunks_total"]),
                    "done": bool(row["done"]), "paused": bool(row["paused"]), "state": str(row["state"]),
                    "reason": row["reason"]}
        with _gateway.translated(self._spark):
            st = self._j.run()
            total = st.chunksTotal()
            return {
                "snapshot": None if st.snapshot() is None else str(st.snapshot()),
                "chunks_done": int(st.chunksDone()),
                "chunks_total": None if total is None else int(total),
                "done": bool(st.done()),
                "paused": bool(st.paused()),
                "state": str(st.state()),
                "reason": None if st.reason() is None else str(st.reason()),
            }


class Seed(_gateway.JvmBuilder):
    """A ``Seed`` on the JVM (``CdcStream.Builder.seed(copy)``): setters return ``self``, ``run()``
    appends the copy as the target's snapshot and returns its offset."""

    def asOf(self, copy_started_at: str) -> "Seed":  # noqa: N802 - the JVM's name
        """When the copy started, ISO-8601 with an offset (``2026-11-30T02:00:00Z``; without one: UTC):
        the seed is stamped with the last commit at or before it."""
        return self._set("asOf", str(copy_started_at))

    def asOfLsn(self, lsn: str) -> "Seed":  # noqa: N802
        """The LSN recorded before the copy started (``0x`` + 20 hex digits): the exact stamp."""
        return self._set("asOfLsn", str(lsn))

    def allowMissingColumns(self, allow: bool = True) -> "Seed":  # noqa: N802
        """Accept a copy that lacks captured columns (they are NULL in the seed)."""
        return self._set("allowMissingColumns", bool(allow))

    def reseed(self, reseed: bool = True) -> "Seed":
        """Seed a target that holds an older snapshot with a newer copy."""
        return self._set("reseed", bool(reseed))

    def run(self) -> Dict[str, Any]:
        """Appends the seed (Delta skips a rerun's) and returns its offset as a dict (``{"lsn": "0x…",
        "commit_ts": "…", ...}``), the stream's ``startingLsn``."""
        with _gateway.translated(self._spark):
            return json.loads(str(self._j.run().json()))


class CdcStream:
    """The pipeline entry point: ``CdcStream.builder(spark)`` (docs/PIPELINE.md)."""

    @staticmethod
    def builder(spark: SparkSession, catalog: Optional[str] = None) -> CdcStreamBuilder:
        """A new builder on ``spark``'s JVM session; on a Spark Connect session, one that calls the
        ``catalog``'s procedures (default the session's ``spark.mssql_cdc.catalog``, else ``cdc``)."""
        j, cat = _gateway.builder(spark, _CDC_STREAM, catalog)
        return CdcStreamBuilder(spark, j, cat)


class CdcStreams:
    """Many streams at once (JVM ``io.mssqlcdc.sink.pipeline.CdcStreams``)."""

    @staticmethod
    def awaitAll(  # noqa: N802
        spark: SparkSession, queries: Mapping[str, StreamingQuery], timeout_seconds: int = 0
    ) -> Dict[str, CdcError]:
        """Waits for every query (``timeout_seconds`` 0: until each ends); never raises. Returns the
        failed ones by capture instance, each failure as a :class:`CdcError`."""
        if _connect.is_connect(spark):
            out_c: Dict[str, CdcError] = {}
            for ci, q in queries.items():
                try:
                    if timeout_seconds:
                        q.awaitTermination(int(timeout_seconds))
                    else:
                        q.awaitTermination()
                    e = q.exception()
                except Exception as ex:  # noqa: BLE001 - a query that ended before is no longer listed
                    e = None if _ended(ex) else ex
                if e is not None:
                    out_c[ci] = _connect.error_of(e) or CdcError(None, str(e), None)
            return out_c
        jvm = _gateway.jvm(spark)
        jmap = _java_queries(spark, queries)
        failed = _gateway.jclass(spark, _CDC_STREAMS).awaitAll(jmap, int(timeout_seconds))
        out: Dict[str, CdcError] = {}
        for e in failed.entrySet().toArray():
            out[str(e.getKey())] = CdcError.from_java(e.getValue(), jvm)
        return out

    @staticmethod
    def stopAll(spark: SparkSession, queries: Mapping[str, StreamingQuery]) -> None:  # noqa: N802
        """Stops every query (each even if another's stop fails)."""
        if _connect.is_connect(spark):
            for q in queries.values():
                try:
                    q.stop()
                except Exception:  # noqa: BLE001,S110 - each stopped even if another's stop fails
                    pass
            return
        _gateway.jclass(spark, _CDC_STREAMS).stopAll(_java_queries(spark, queries))


class _ConnectTracking:
    """``Finalization.tracking(spark, control, granularity)`` on a Spark Connect session: what
    ``start_stream``'s ``controlTable`` and ``granularity`` get (the server attaches the tracking)."""

    def __init__(self, spark: Any, control_table: str, granularity: str) -> None:
        self._spark = spark
        self.control_table = control_table
        self.granularity = granularity
        self._started: List[Tuple[str, str]] = []  # (catalog, query id) of the queries started with it

    def _record(self, catalog: str, query_ids: Sequence[str]) -> None:
        self._started.extend((catalog, str(q)) for q in query_ids)

    def trackers(self) -> Any:
        raise _connect.unsupported("TrackingAttachment.trackers", "read Finalization.finalizedUntil, or wait with "
                                   "joinAll")

    def joinAll(self, timeout_seconds: float) -> bool:  # noqa: N802
        """Waits until every query started with this tracking has ended and the server's tracking wrote its
        last verdict (``CALL <catalog>.system.await_tracking`` per query); False when ``timeout_seconds``
        passed first."""
        deadline = time.monotonic() + float(timeout_seconds)
        done = True
        for catalog, query_id in self._started:
            row = _connect.call(self._spark, catalog, "await_tracking", {
                "queryId": query_id, "timeoutSeconds": max(0.0, deadline - time.monotonic())})[0]
            done = done and bool(row["done"])
        return done

    def __repr__(self) -> str:
        return f"Finalization.tracking({self.control_table!r}, {self.granularity!r})"


def _ended(e: BaseException) -> bool:
    return "STREAMING_QUERY_NOT_FOUND" in str(e)


class _ConnectQuery:
    """The handle of a query a procedure started on the server, over Spark Connect: the Connect
    ``StreamingQuery`` (``spark.streams.get(query_id)``) while the query runs. Spark lists active queries
    only, so once the query has ended (an ``availableNow`` run) the server knows it no longer
    (``STREAMING_QUERY_NOT_FOUND``): it then answers as a terminated query that did not fail
    (``isActive`` False, ``awaitTermination`` returns, ``exception()`` None, ``stop()`` nothing). A failure
    while a client waits in ``awaitTermination`` is raised there as pyspark raises it; one after is only
    in the server's log and the facts table. Anything else is the Connect query's."""

    def __init__(self, row: Any, query: Any) -> None:
        self._q = query
        self.id, self.runId, self.name = row["query_id"], row["run_id"], row["name"]

    def _ask(self, f: Any, ended: Any) -> Any:
        if self._q is None:
            return ended
        try:
            return f(self._q)
        except Exception as e:  # noqa: BLE001
            if not _ended(e):
                raise
            self._q = None
            return ended

    @property
    def isActive(self) -> bool:  # noqa: N802 - pyspark's name
        return bool(self._ask(lambda q: q.isActive, False))

    def awaitTermination(self, timeout: Optional[int] = None) -> Optional[bool]:  # noqa: N802
        if timeout is None:
            return self._ask(lambda q: q.awaitTermination(), None)
        return self._ask(lambda q: q.awaitTermination(timeout), True)

    def exception(self) -> Any:
        return self._ask(lambda q: q.exception(), None)

    def stop(self) -> None:
        self._ask(lambda q: q.stop(), None)

    @property
    def lastProgress(self) -> Any:  # noqa: N802
        return self._ask(lambda q: q.lastProgress, None)

    @property
    def recentProgress(self) -> Any:  # noqa: N802
        return self._ask(lambda q: q.recentProgress, [])

    @property
    def status(self) -> Any:
        return self._ask(lambda q: q.status, {"message": "Terminated", "isDataAvailable": False,
                                              "isTriggerActive": False})

    def processAllAvailable(self) -> None:  # noqa: N802
        self._ask(lambda q: q.processAllAvailable(), None)

    def __repr__(self) -> str:
        return f"StreamingQuery(id={self.id}, runId={self.runId}, name={self.name})"


def _connect_query(spark: SparkSession, row: Any) -> Any:
    """The started query's handle (:class:`_ConnectQuery`)."""
    try:
        q = spark.streams.get(row["query_id"])
    except Exception as e:  # noqa: BLE001
        if not _ended(e):
            raise
        q = None
    return _ConnectQuery(row, q)


def _java_queries(spark: SparkSession, queries: Mapping[str, StreamingQuery]) -> Any:
    jmap = _gateway.jvm(spark).java.util.LinkedHashMap()
    for ci, q in queries.items():
        jmap.put(ci, q._jsq)
    return jmap


__all__ = ["Backfill", "CdcStream", "CdcStreamBuilder", "CdcStreams", "Seed"]
