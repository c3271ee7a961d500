"""``ApplyChanges``: silver, the current-state table (JVM ``io.mssqlcdc.silver.ApplyChanges``).

Every method forwards to the JVM builder of the same name; arguments, their checks and the MERGE rules
are the JVM's (docs/SILVER.md; docs/OPTIONS.md, "Silver arguments"). Nothing here decides anything. On a
Spark Connect session :meth:`ApplyChangesBuilder.run` calls the catalog's ``apply_changes`` procedure.
"""

from __future__ import annotations

import datetime as dt
from typing import Any, Mapping, Optional, Sequence, Union

from pyspark.sql import SparkSession

from mssql_cdc import _gateway
from mssql_cdc.errors import CdcError
from mssql_cdc.finalization import _utc

_APPLY_CHANGES = "io.mssqlcdc.silver.ApplyChanges"


class ApplyResult:
    """What one :meth:`ApplyChangesBuilder.run` did (the JVM ``ApplyResult``); methods as the JVM's."""

    def __init__(self, jresult: Any) -> None:
        self._jobj = jresult

    @staticmethod
    def _of_row(row: Any) -> "ApplyResult":
        """The ``apply_changes`` procedure's row (Spark Connect), answering as the JVM result does."""
        return _RowApplyResult(row)

    def rebuilt(self) -> bool:
        """Whether the call rebuilt silver from a snapshot (the first call, or a newer snapshot in bronze)."""
        return bool(self._jobj.rebuilt())

    def appliedLsn(self) -> Optional[str]:  # noqa: N802 - the JVM's name
        """Silver's position (``applied_lsn``, canonical hex): the newest bronze LSN applied; None before any."""
        lsn = self._jobj.appliedLsn()
        return str(lsn.get()) if lsn.isPresent() else None

    def finalizedUntil(self) -> Optional[dt.datetime]:  # noqa: N802
        """Silver's verdict after the call, a naive ``datetime`` (UTC); None without one."""
        return _utc(self._jobj.finalizedUntil())

    def bronzeFound(self) -> bool:  # noqa: N802
        """False when bronze does not exist (yet): nothing was applied."""
        return bool(self._jobj.bronzeFound())

    def __repr__(self) -> str:
        return str(self._jobj.toString())


class _RowApplyResult(ApplyResult):
    def __init__(self, row: Any) -> None:
        super().__init__(None)
        self._row = row

    def rebuilt(self) -> bool:
        return bool(self._row["rebuilt"])

    def appliedLsn(self) -> Optional[str]:  # noqa: N802
        return self._row["applied_lsn"]

    def finalizedUntil(self) -> Optional[dt.datetime]:  # noqa: N802
        return self._row["finalized_until"]

    def bronzeFound(self) -> bool:  # noqa: N802
        return bool(self._row["bronze_found"])

    def __repr__(self) -> str:
        return (f"ApplyResult{{rebuilt={str(self.rebuilt()).lower()}, appliedLsn={self.appliedLsn()}, "
                f"finalizedUntil={self.finalizedUntil()}, bronzeFound={str(self.bronzeFound()).lower()}}}")


class ApplyChangesBuilder(_gateway.JvmBuilder):
    """An ``ApplyChanges.Builder`` on the JVM. Setters return ``self``; :meth:`run` applies bronze to silver."""

    def bronze(self, name_or_path: str) -> "ApplyChangesBuilder":
        """The bronze table, named exactly as the stream's ``target`` (name or path). Required."""
        return self._set("bronze", name_or_path)

    def target(self, name_or_path: str) -> "ApplyChangesBuilder":
        """The silver table (name or path); created on the first call. Required."""
        return self._set("target", name_or_path)

    def captureInstance(self, capture_instance: str) -> "ApplyChangesBuilder":  # noqa: N802 - the JVM's name
        """The stream's capture instance; default the options' ``captureInstance``."""
        return self._set("captureInstance", capture_instance)

    def keys(self, key_columns: Sequence[str]) -> "ApplyChangesBuilder":
        """The columns that identify a row; default the capture instance's unique index (read through
        the reader options)."""
        return self._set_list("keys", key_columns)

    def _set_list(self, method: str, columns: Sequence[str]) -> Any:
        """A setter taking a list of column names (a ``java.util.List`` on the JVM)."""
        if isinstance(columns, str):
            columns = [columns]
        if self._rec is not None:
            return self._set(method, list(columns))
        jlist = _gateway.jvm(self._spark).java.util.ArrayList()
        for c in columns:
            jlist.add(c)
        return self._set(method, jlist)

    def controlTable(self, name_or_path: str) -> "ApplyChangesBuilder":  # noqa: N802
        """The control table the stream's tracking writes bronze's verdict to; silver's position and
        verdict are kept there under ``target``. Required; created when missing."""
        return self._set("controlTable", name_or_path)

    def factsTable(self, name_or_path: str) -> "ApplyChangesBuilder":  # noqa: N802
        """The stream's facts table (its snapshots to rebuild from); without it the verdict never moves."""
        return self._set("factsTable", name_or_path)

    def option(self, key: str, value: Union[str, int, float, bool]) -> "ApplyChangesBuilder":
        """One of the stream's reader options (``format("mssql_cdc")``, docs/OPTIONS.md). Booleans become
        ``"true"``/``"false"``, numbers their text, as ``DataStreamReader.option`` does."""
        text = str(value).lower() if isinstance(value, bool) else str(value)
        return self._set("option", key, text)

    def options(self, options: Mapping[str, Union[str, int, float, bool]]) -> "ApplyChangesBuilder":
        """The stream's reader options, as :meth:`option` one by one."""
        for k, v in options.items():
            self.option(k, v)
        return self

    def granularity(self, granularity: str) -> "ApplyChangesBuilder":
        """``minute``, ``hour`` (default) or ``day``: the period silver's ``finalized_until`` counts in."""
        return self._set("granularity", granularity)

    def run(self) -> ApplyResult:
        """Checks every argument, then applies what bronze holds beyond silver's position (one MERGE of
        the latest image per key). Run one call per silver table at a time."""
        return self._run("apply_changes", "silver")

    def _run(self, procedure: str, target: str, extra: Sequence[str] = ()) -> ApplyResult:
        """The call: the JVM builder's ``run()``, or over Spark Connect the catalog's ``procedure`` with the
        shared arguments (the target's named ``target``) and the settings named in ``extra``."""
        if self._rec is not None:
            st = self._rec.settings
            table = st.get("captureInstance") or self._rec.table()
            if table is None:
                raise CdcError(None, "captureInstance is required over Spark Connect: it names the catalog table "
                               "bronze holds (.captureInstance(\"dbo_orders\") or the captureInstance option).", None)
            args = {"table": table, "bronze": st.get("bronze"), target: st.get("target"),
                    "controlTable": st.get("controlTable"), "factsTable": st.get("factsTable"), "keys": st.get("keys"),
                    "granularity": st.get("granularity")}
            args.update({k: st.get(k) for k in extra})
            args["options"] = self._rec.reader_options()
            return ApplyResult._of_row(self._call(procedure, args)[0])
        with _gateway.translated(self._spark):
            return ApplyResult(self._j.run())


class ApplyChanges:
    """Silver: keeps a current-state Delta table equal to the source, from bronze (docs/SILVER.md)."""

    @staticmethod
    def builder(spark: SparkSession, catalog: Optional[str] = None) -> ApplyChangesBuilder:
        """A new builder on ``spark``'s JVM session; on a Spark Connect session, one that calls the
        ``catalog``'s ``apply_changes`` (default the session's ``spark.mssql_cdc.catalog``, else ``cdc``)."""
        j, cat = _gateway.builder(spark, _APPLY_CHANGES, catalog)
        return ApplyChangesBuilder(spark, j, cat)


__all__ = ["ApplyChanges", "ApplyChangesBuilder", "ApplyResult"]
