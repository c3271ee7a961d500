"""``ApplyHistory``: the history table, every version of every row (JVM ``io.mssqlcdc.silver.ApplyHistory``).

The same builder as :class:`mssql_cdc.ApplyChangesBuilder` (bronze, target, keys, control and facts tables, reader
options, granularity) plus ``storeDeletes``, ``trackHistoryColumns`` and ``exceptColumns``; every method forwards
to the JVM builder of the same name (docs/HISTORY.md; docs/OPTIONS.md, "History arguments"). On a Spark Connect
session :meth:`ApplyHistoryBuilder.run` calls the catalog's ``apply_history`` procedure.
"""

from __future__ import annotations

from typing import Optional, Sequence

from pyspark.sql import SparkSession

from mssql_cdc import _gateway
from mssql_cdc.silver import ApplyChangesBuilder, ApplyResult

_APPLY_HISTORY = "io.mssqlcdc.silver.ApplyHistory"


class ApplyHistoryBuilder(ApplyChangesBuilder):
    """An ``ApplyHistory.Builder`` on the JVM. Setters return ``self``; :meth:`run` applies bronze to the history."""

    def storeDeletes(self, store: bool) -> "ApplyHistoryBuilder":  # noqa: N802 - the JVM's name
        """Whether a delete also writes a tombstone version (``__is_deleted`` true); default False."""
        return self._set("storeDeletes", bool(store))

    def trackHistoryColumns(self, columns: Sequence[str]) -> "ApplyHistoryBuilder":  # noqa: N802
        """The columns whose changes open a new version (others update the current one in place)."""
        return self._set_list("trackHistoryColumns", columns)

    def exceptColumns(self, columns: Sequence[str]) -> "ApplyHistoryBuilder":  # noqa: N802
        """The columns whose changes do not open a new version (every other does)."""
        return self._set_list("exceptColumns", columns)

    def run(self) -> ApplyResult:
        """Checks every argument, then applies what bronze holds beyond the history's position: each key's
        versions opened and closed (docs/HISTORY.md). Run one call per history table at a time."""
        return self._run("apply_history", "history", ("storeDeletes", "trackHistoryColumns", "exceptColumns"))


class ApplyHistory:
    """SCD type 2 history beside silver: one row per version of each key, from bronze (docs/HISTORY.md)."""

    @staticmethod
    def builder(spark: SparkSession, catalog: Optional[str] = None) -> ApplyHistoryBuilder:
        """A new builder on ``spark``'s JVM session; on a Spark Connect session, one that calls the
        ``catalog``'s ``apply_history`` (default the session's ``spark.mssql_cdc.catalog``, else ``cdc``)."""
        j, cat = _gateway.builder(spark, _APPLY_HISTORY, catalog)
        return ApplyHistoryBuilder(spark, j, cat)


__all__ = ["ApplyHistory", "ApplyHistoryBuilder"]
