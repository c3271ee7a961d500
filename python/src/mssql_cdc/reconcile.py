"""``Reconcile``: prove silver equals SQL Server (JVM ``io.mssqlcdc.reconcile.Reconcile``).

Every method forwards to the JVM builder of the same name; arguments, their checks and the comparison are
the JVM's (docs/RECONCILE.md; docs/OPTIONS.md, "Reconcile arguments"). Nothing here decides anything:
the numbers are only checked to be numbers, because Py4J cannot pass anything else to a ``long`` or a
``double``. On a Spark Connect session :meth:`ReconcileBuilder.run` calls the catalog's ``reconcile``
procedure.
"""

from __future__ import annotations

import numbers
from typing import Any, Dict, Mapping, Optional, Sequence, Union, overload

from pyspark.sql import DataFrame, SparkSession

from mssql_cdc import _gateway
from mssql_cdc.errors import CdcError

_RECONCILE = "io.mssqlcdc.reconcile.Reconcile"
_LONG_MIN, _LONG_MAX = -(2**63), 2**63 - 1


def _long(argument: str, value: Any) -> int:
    """``value`` as a JVM ``long``; a ``TypeError`` naming ``argument`` for anything else (a bool, 1.5, "10")."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{argument} must be an integer (a JVM long), not {value!r} ({type(value).__name__}).")
    if not _LONG_MIN <= int(value) <= _LONG_MAX:
        raise TypeError(f"{argument} must fit a JVM long ({_LONG_MIN} to {_LONG_MAX}), not {value!r}.")
    return int(value)


def _double(argument: str, value: Any) -> float:
    """``value`` as a JVM ``double``; a ``TypeError`` naming ``argument`` for a bool or a non-number."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{argument} must be a number (a JVM double), not {value!r} ({type(value).__name__}).")
    return float(value)


class ReconcileResult:
    """What one :meth:`ReconcileBuilder.run` found (the JVM ``ReconcileResult``); methods as the JVM's,
    returning Python values."""

    def __init__(self, spark: SparkSession, jresult: Any) -> None:
        self._spark = spark
        self._jobj = jresult

    def runId(self) -> str:  # noqa: N802 - the JVM's name
        """The run's UUID: the report rows' ``run_id``."""
        return str(self._jobj.runId())

    def silverVersion(self) -> int:  # noqa: N802
        """The Delta version of silver that was compared."""
        return int(self._jobj.silverVersion())

    def silverLsn(self) -> Optional[str]:  # noqa: N802
        """Silver's ``applied_lsn`` (canonical hex), read before that version was pinned; None when none."""
        lsn = self._jobj.silverLsn()
        return str(lsn.get()) if lsn.isPresent() else None

    def sourceLsn(self) -> str:  # noqa: N802
        """SQL Server's ``max_lsn`` (canonical hex), read before the counts."""
        return str(self._jobj.sourceLsn())

    def buckets(self) -> int:
        """Tier 1 buckets (a whole-table count is one)."""
        return int(self._jobj.buckets())

    def match(self) -> int:
        """Buckets whose rows and key sums are equal."""
        return int(self._jobj.match())

    def inFlight(self) -> int:  # noqa: N802
        """Buckets that differ while keys of them changed after silver's position."""
        return int(self._jobj.inFlight())

    def mismatch(self) -> int:
        """Buckets that differ with nothing in flight: silver is not the source."""
        return int(self._jobj.mismatch())

    def hashed(self) -> int:
        """Buckets (or key ranges) compared row by row."""
        return int(self._jobj.hashed())

    @overload
    def failures(self) -> Dict[str, int]: ...

    @overload
    def failures(self, failure_type: str) -> int: ...

    def failures(self, failure_type: Optional[str] = None) -> Union[Dict[str, int], int]:
        """Key rows and chunk rows by failure type (``MISSING_TARGET``, ``MISSING_SOURCE``, ``RECORD_DIFF``,
        ``IN_FLIGHT``, ``CHUNK_TILING``, ``CHUNK_ROWS``, ``CHUNK_STAMP``), sorted by type; empty when none.
        With ``failure_type``, that type's count (0 when none), as the JVM's ``failures(String)``."""
        if failure_type is not None:
            return int(self._jobj.failures(failure_type))
        return {str(e.getKey()): int(e.getValue()) for e in self._jobj.failures().entrySet().toArray()}

    def clean(self) -> bool:
        """Whether silver was proved equal to the source: no MISMATCH bucket and no failure but IN_FLIGHT."""
        return bool(self._jobj.clean())

    def report(self) -> DataFrame:
        """This run's report rows, as appended to ``reportTable`` (docs/TABLES.md, "reconcile report"): a
        pyspark ``DataFrame``."""
        return DataFrame(self._jobj.report(), self._spark)

    def summary(self) -> str:
        """One line for logs (what the JVM logs)."""
        return str(self._jobj.summary())

    def __repr__(self) -> str:
        return self.summary()


class _RowReconcileResult(ReconcileResult):
    """The ``reconcile`` procedure's row (Spark Connect), answering as the JVM result does."""

    def __init__(self, spark: SparkSession, row: Any, report_table: Optional[str]) -> None:
        super().__init__(spark, None)
        self._row = row
        self._report_table = report_table

    def runId(self) -> str:  # noqa: N802
        return str(self._row["run_id"])

    def silverVersion(self) -> int:  # noqa: N802
        return int(self._row["silver_version"])

    def silverLsn(self) -> Optional[str]:  # noqa: N802
        return self._row["silver_lsn"]

    def sourceLsn(self) -> str:  # noqa: N802
        return str(self._row["source_lsn"])

    def buckets(self) -> int:
        return int(self._row["buckets"])

    def match(self) -> int:
        return int(self._row["match"])

    def inFlight(self) -> int:  # noqa: N802
        return int(self._row["in_flight"])

    def mismatch(self) -> int:
        return int(self._row["mismatch"])

    def hashed(self) -> int:
        return int(self._row["hashed"])

    def failures(self, failure_type: Optional[str] = None) -> Union[Dict[str, int], int]:  # type: ignore[override]
        found = {str(k): int(v) for k, v in sorted((self._row["failures"] or {}).items())}
        return found if failure_type is None else found.get(failure_type, 0)

    def clean(self) -> bool:
        return bool(self._row["clean"])

    def report(self) -> DataFrame:
        """The run's rows of ``reportTable`` (over Spark Connect the rows are only where the run appended
        them: without ``reportTable`` a :class:`CdcError` says so)."""
        if self._report_table is None:
            from mssql_cdc import _connect

            raise _connect.unsupported("ReconcileResult.report() without reportTable",
                                       "set reportTable: the run's rows are read back from it")
        t = self._report_table
        df = (self._spark.read.format("delta").load(t) if ("/" in t or ":" in t) else self._spark.table(t))
        from pyspark.sql.functions import col, lit

        return df.where(col("run_id") == lit(self.runId()))

    def summary(self) -> str:
        return str(self._row["summary"])


class ReconcileBuilder(_gateway.JvmBuilder):
    """A ``Reconcile.Builder`` on the JVM. Setters return ``self``; :meth:`run` checks every argument,
    then compares silver with the source."""

    def option(self, key: str, value: Union[str, int, float, bool]) -> "ReconcileBuilder":
        """One of the stream's reader options (``format("mssql_cdc")``, docs/OPTIONS.md): the source table
        is counted and read through them. Booleans become ``"true"``/``"false"``, numbers their text, as
        ``DataStreamReader.option`` does."""
        text = str(value).lower() if isinstance(value, bool) else str(value)
        return self._set("option", key, text)

    def options(self, options: Mapping[str, Union[str, int, float, bool]]) -> "ReconcileBuilder":
        """The stream's reader options (with ``captureInstance`` and the connection), as :meth:`option` one
        by one. Required."""
        for k, v in options.items():
            self.option(k, v)
        return self

    def silver(self, name_or_path: str) -> "ReconcileBuilder":
        """The silver table ``ApplyChanges`` writes, spelled as its ``target`` was. Required; never written."""
        return self._set("silver", name_or_path)

    def bronze(self, name_or_path: str) -> "ReconcileBuilder":
        """The bronze table, named exactly as the stream's ``target``. Required; never written."""
        return self._set("bronze", name_or_path)

    def controlTable(self, name_or_path: str) -> "ReconcileBuilder":  # noqa: N802 - the JVM's name
        """The control table silver's position (``applied_lsn``) is read from. Required."""
        return self._set("controlTable", name_or_path)

    def keys(self, key_columns: Sequence[str]) -> "ReconcileBuilder":
        """The columns silver is keyed by (matched ignoring case); default the capture instance's unique
        index."""
        if isinstance(key_columns, str):
            key_columns = [key_columns]
        if self._rec is not None:
            return self._set("keys", list(key_columns))
        jlist = _gateway.jvm(self._spark).java.util.ArrayList()
        for k in key_columns:
            jlist.add(k)
        return self._set("keys", jlist)

    def factsTable(self, name_or_path: str) -> "ReconcileBuilder":  # noqa: N802
        """The stream's facts table: with it, the newest chunked snapshot of bronze is checked."""
        return self._set("factsTable", name_or_path)

    def reportTable(self, name_or_path: str) -> "ReconcileBuilder":  # noqa: N802
        """The report table each run appends its rows to (created on first use); without it the rows are
        only in the result's :meth:`ReconcileResult.report`."""
        return self._set("reportTable", name_or_path)

    def bucketRows(self, rows: int) -> "ReconcileBuilder":  # noqa: N802
        """About how many rows a tier 1 bucket holds (at least 1; default 1,000,000)."""
        return self._set("bucketRows", _long("bucketRows", rows))

    def sample(self, fraction: float) -> "ReconcileBuilder":
        """The fraction (0 to 1; default 0.01) of MATCH buckets also compared row by row."""
        return self._set("sample", _double("sample", fraction))

    def seed(self, seed: int) -> "ReconcileBuilder":
        """Seeds the choice of sampled buckets (default random)."""
        return self._set("seed", _long("seed", seed))

    def run(self) -> ReconcileResult:
        """Checks every argument before reading anything, then runs the reconcile: counts, in-flight
        keys, row-by-row comparison, chunk checks, the report rows (appended to ``reportTable``)."""
        if self._rec is not None:
            st = self._rec.settings
            table = self._rec.table()
            if table is None:
                raise CdcError(None, "Option 'captureInstance' is required: over Spark Connect it names the catalog "
                               "table silver mirrors, e.g. .option(\"captureInstance\", \"dbo_orders\").", None)
            row = self._call("reconcile", {
                "table": table, "silver": st.get("silver"), "bronze": st.get("bronze"),
                "controlTable": st.get("controlTable"), "keys": st.get("keys"), "factsTable": st.get("factsTable"),
                "reportTable": st.get("reportTable"), "bucketRows": st.get("bucketRows"), "sample": st.get("sample"),
                "seed": st.get("seed"), "options": self._rec.reader_options()})[0]
            return _RowReconcileResult(self._spark, row, st.get("reportTable"))
        with _gateway.translated(self._spark):
            return ReconcileResult(self._spark, self._j.run())


class Reconcile:
    """Reconcile: proves a silver table equals the SQL Server table it mirrors (docs/RECONCILE.md)."""

    @staticmethod
    def builder(spark: SparkSession, catalog: Optional[str] = None) -> ReconcileBuilder:
        """A new builder on ``spark``'s JVM session; on a Spark Connect session, one that calls the
        ``catalog``'s ``reconcile`` (default the session's ``spark.mssql_cdc.catalog``, else ``cdc``)."""
        j, cat = _gateway.builder(spark, _RECONCILE, catalog)
        return ReconcileBuilder(spark, j, cat)


__all__ = ["Reconcile", "ReconcileBuilder", "ReconcileResult"]
