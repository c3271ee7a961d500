"""``CdcStream``: the pipeline entry point (JVM ``io.mssqlcdc.sink.pipeline.CdcStream``).

Every method forwards to the JVM builder of the same name; arguments and their checks are the JVM's
(docs/OPTIONS.md, "Pipeline arguments"; docs/PIPELINE.md). Nothing here decides anything.
"""

from __future__ import annotations

import json
from typing import Any, Dict, Mapping, Sequence, Union

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql.streaming import StreamingQuery

from mssql_cdc import _gateway
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
        (non-blocking). Returns pyspark's ``StreamingQuery`` over the JVM query."""
        with _gateway.translated(self._spark):
            return StreamingQuery(self._j.toDelta())

    def snapshot(self, target: str, resnapshot: bool = False) -> Dict[str, Any]:
        """A full snapshot of the table into ``target`` (unless ``resnapshot``, the newest one the target
        holds is returned and nothing is read). Returns its stamp: the offset JSON as a dict
        (``{"lsn": "0x…", "commit_ts": "…", "v": 1}``)."""
        with _gateway.translated(self._spark):
            return json.loads(str(self._j.snapshot(target, bool(resnapshot)).json()))

    def backfill(self) -> "Backfill":
        """The chunked snapshot's waves beside the running stream (docs/PIPELINE.md, "Chunked"): set its
        limits on the returned builder, then ``run()``; call again until the state is ``done``. Needs the
        builder's ``target``, ``appId``, ``factsTable`` and reader options, as the stream has them."""
        with _gateway.translated(self._spark):
            return Backfill(self._spark, self._j.backfill())

    def seed(self, copy: DataFrame) -> "Seed":
        """Seeds ``target`` with ``copy`` (a DataFrame copy of the table, e.g. an export) as its snapshot,
        stamped ``asOfLsn`` or ``asOf``: set one on the returned builder, then ``run()``; the stream then
        starts from it with ``bootstrap(True)``."""
        with _gateway.translated(self._spark):
            return Seed(self._spark, self._j.seed(copy._jdf))

    def startMany(  # noqa: N802
        self, capture_instances: Union[Sequence[str], Mapping[str, Mapping[str, str]]]
    ) -> Dict[str, StreamingQuery]:
        """One stream per capture instance; ``target``, ``appId`` and ``checkpoint`` (and ``queryName``)
        are templates with ``{ci}``. A mapping gives reader option overrides per instance. Returns the
        queries by capture instance, in the given order."""
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
    def builder(spark: SparkSession) -> CdcStreamBuilder:
        """A new builder on ``spark``'s JVM session."""
        cls = _gateway.jclass(spark, _CDC_STREAM)
        return CdcStreamBuilder(spark, cls.builder(_gateway.jsession(spark)))


class CdcStreams:
    """Many streams at once (JVM ``io.mssqlcdc.sink.pipeline.CdcStreams``)."""

    @staticmethod
    def awaitAll(  # noqa: N802
        spark: SparkSession, queries: Mapping[str, StreamingQuery], timeout_seconds: int = 0
    ) -> Dict[str, CdcError]:
        """Waits for every query (``timeout_seconds`` 0: until each ends); never raises. Returns the
        failed ones by capture instance, each failure as a :class:`CdcError`."""
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
        _gateway.jclass(spark, _CDC_STREAMS).stopAll(_java_queries(spark, queries))


def _java_queries(spark: SparkSession, queries: Mapping[str, StreamingQuery]) -> Any:
    jmap = _gateway.jvm(spark).java.util.LinkedHashMap()
    for ci, q in queries.items():
        jmap.put(ci, q._jsq)
    return jmap


__all__ = ["Backfill", "CdcStream", "CdcStreamBuilder", "CdcStreams", "Seed"]
