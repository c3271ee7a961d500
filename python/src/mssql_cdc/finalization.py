"""``Finalization``: ``finalized_until``, the completeness signal (JVM ``io.mssqlcdc.finalization``).

Each function forwards to the JVM method of the same name (docs/FINALIZATION.md); the control table's
name or path and the table name are spelled as the writer spells them. Verdicts are UTC; Python gets
them as naive ``datetime`` (UTC). On a Spark Connect session ``finalizedUntil`` and ``isFinal`` call the
catalog's ``finalized_until`` and ``is_final`` procedures, and ``tracking`` gives what ``start_stream``'s
``controlTable`` and ``granularity`` take; the others need the driver's JVM and say so.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any, List, Mapping, Optional, Union

from pyspark.sql import SparkSession
from pyspark.sql.streaming import StreamingQuery

from mssql_cdc import _connect, _gateway

_FINALIZATION = "io.mssqlcdc.finalization.Finalization"

PeriodEnd = Union[dt.datetime, dt.date, str]


def _utc(ldt: Any) -> Optional[dt.datetime]:
    """A JVM ``Optional<LocalDateTime>`` (UTC) as a naive Python ``datetime``, or None."""
    if not ldt.isPresent():
        return None
    return dt.datetime.fromisoformat(str(ldt.get().toString()))


def _millis(timeout_seconds: float) -> int:
    return int(timeout_seconds * 1000)


class FinalizationTracker:
    """A JVM ``FinalizationTracker``: follows one run of a started query (``Finalization.track``)."""

    def __init__(self, spark: SparkSession, jtracker: Any) -> None:
        self._spark = spark
        self._jobj = jtracker

    def join(self, timeout_seconds: float) -> bool:
        """Waits until the run terminated and its last verdict is written; False on timeout."""
        with _gateway.translated(self._spark):
            return bool(self._jobj.join(_millis(timeout_seconds)))

    def stop(self) -> None:
        """Stops tracking while the query runs on (what is left is applied first)."""
        self._jobj.stop()

    def lastVerdict(self) -> Optional[dt.datetime]:  # noqa: N802 - the JVM's name
        return _utc(self._jobj.lastVerdict())

    def advances(self) -> int:
        return int(self._jobj.advances())

    def failures(self) -> int:
        return int(self._jobj.failures())

    def lastError(self) -> Optional[str]:  # noqa: N802
        e = self._jobj.lastError()
        return str(e.get().toString()) if e.isPresent() else None

    def isStopped(self) -> bool:  # noqa: N802
        return bool(self._jobj.isStopped())


class TrackingAttachment:
    """A JVM ``TrackingAttachment`` for ``CdcStreamBuilder.attach``: tracks every stream the pipeline
    starts (its target) in the control table."""

    def __init__(self, spark: SparkSession, jattachment: Any) -> None:
        self._spark = spark
        self._jobj = jattachment

    def trackers(self) -> List[FinalizationTracker]:
        return [FinalizationTracker(self._spark, t) for t in self._jobj.trackers().toArray()]

    def joinAll(self, timeout_seconds: float) -> bool:  # noqa: N802
        """Waits for every tracker it started; False on timeout."""
        with _gateway.translated(self._spark):
            return bool(self._jobj.joinAll(_gateway.jvm(self._spark).java.time.Duration.ofMillis(
                _millis(timeout_seconds))))


class Finalization:
    """``finalized_until`` per table in a control table (docs/FINALIZATION.md)."""

    DEFAULT_GRANULARITY = "hour"

    @staticmethod
    def _cls(spark: SparkSession) -> Any:
        return _gateway.jclass(spark, _FINALIZATION)

    @staticmethod
    def ensureControlTable(spark: SparkSession, control_table: str) -> None:  # noqa: N802
        """Creates the control table (name or path) at the latest schema version, or migrates it."""
        if _connect.is_connect(spark):
            raise _connect.unsupported("Finalization.ensureControlTable",
                                       "start_stream and apply_changes create the control table when missing")
        with _gateway.translated(spark):
            Finalization._cls(spark).ensureControlTable(_gateway.jsession(spark), control_table)

    @staticmethod
    def finalizedUntil(spark: SparkSession, control_table: str, table_name: str,  # noqa: N802
                       catalog: Optional[str] = None) -> Optional[dt.datetime]:
        """The table's verdict (UTC): every period ending at or before it is complete; None without one.
        ``catalog``: the catalog whose ``finalized_until`` a Spark Connect session calls (default the
        session's ``spark.mssql_cdc.catalog``, else ``cdc``)."""
        if _connect.is_connect(spark):
            row = _connect.call(spark, _connect.catalog_name(spark, catalog), "finalized_until",
                                {"controlTable": control_table, "tableName": table_name})[0]
            return row["finalized_until"]
        with _gateway.translated(spark):
            return _utc(Finalization._cls(spark).finalizedUntil(_gateway.jsession(spark), control_table, table_name))

    @staticmethod
    def isFinal(spark: SparkSession, control_table: str, table_name: str, period_end: PeriodEnd,  # noqa: N802
                catalog: Optional[str] = None) -> bool:
        """Whether the period ending at ``period_end`` (exclusive) is complete. An aware ``datetime`` is
        converted to UTC, a naive one is UTC, a ``date`` is its midnight UTC; text is ISO-8601 as the JVM
        reads it. ``catalog`` as for :meth:`finalizedUntil`."""
        text = period_end if isinstance(period_end, str) else period_end.isoformat()
        if _connect.is_connect(spark):
            row = _connect.call(spark, _connect.catalog_name(spark, catalog), "is_final",
                                {"controlTable": control_table, "tableName": table_name, "periodEnd": text})[0]
            return bool(row["is_final"])
        with _gateway.translated(spark):
            return bool(Finalization._cls(spark).isFinal(_gateway.jsession(spark), control_table, table_name, text))

    @staticmethod
    def advance(spark: SparkSession, control_table: str, table_name: str,
                end_offset: Union[str, Mapping[str, Any]], granularity: str = DEFAULT_GRANULARITY
                ) -> Optional[dt.datetime]:
        """Moves the verdict to what a committed batch ending at ``end_offset`` (the source's offset JSON,
        text or dict) implies; call it only after that batch is committed. Returns the stored verdict."""
        if _connect.is_connect(spark):
            raise _connect.unsupported("Finalization.advance", "attach Finalization.tracking(...) to the stream")
        text = end_offset if isinstance(end_offset, str) else json.dumps(dict(end_offset))
        jvm = _gateway.jvm(spark)
        with _gateway.translated(spark):
            offset = jvm.io.mssqlcdc.connector.CdcOffset.fromJson(text)
            return _utc(Finalization._cls(spark).advance(_gateway.jsession(spark), control_table, table_name,
                                                        offset, granularity))

    @staticmethod
    def track(spark: SparkSession, query: StreamingQuery, control_table: str, table_name: str,
              granularity: str = DEFAULT_GRANULARITY) -> FinalizationTracker:
        """Advances ``table_name``'s verdict after every batch of ``query`` (started, reading
        ``format("mssql_cdc")`` as its first source) until it terminates. For ``availableNow``:
        ``query.awaitTermination()`` then ``tracker.join(...)``."""
        if _connect.is_connect(spark):
            raise _connect.unsupported("Finalization.track", "attach Finalization.tracking(...) to the stream")
        with _gateway.translated(spark):
            return FinalizationTracker(spark, Finalization._cls(spark).track(
                _gateway.jsession(spark), query._jsq, control_table, table_name, granularity))

    @staticmethod
    def tracking(spark: SparkSession, control_table: str, granularity: str = DEFAULT_GRANULARITY
                 ) -> TrackingAttachment:
        """The attachment for ``CdcStream.builder(spark)...attach(...)`` (the JVM's ``tracking``; Python
        needs the session to reach the JVM). On a Spark Connect session: the control table and granularity
        ``start_stream`` is called with (the server attaches the tracking)."""
        if _connect.is_connect(spark):
            from mssql_cdc.stream import _ConnectTracking

            return _ConnectTracking(spark, control_table, granularity)  # type: ignore[return-value]
        with _gateway.translated(spark):
            return TrackingAttachment(spark, Finalization._cls(spark).tracking(control_table, granularity))


__all__ = ["Finalization", "FinalizationTracker", "TrackingAttachment"]
