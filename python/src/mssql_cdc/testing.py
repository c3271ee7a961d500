"""``FakeDatabase``: the file-backed SQL Server CDC simulator (JVM ``io.mssqlcdc.fake.FakeCdcDatabase``)
from Python, for demos, notebooks and tests without a SQL Server (docs/FAKE.md).

Needs the ``mssql-cdc-fake`` jar beside the connector (``spark.jars`` or
``--packages io.mssqlcdc:mssql-cdc-fake:<v>``). Streams read it with ``backend=fake``,
``fakePath=<path>``. Each method forwards to the JVM method of the same name; a transaction is a Python
function that receives the JVM ``Tx`` and calls ``insert(table, row)``, ``update(table, row)``,
``delete(table, [key...])`` on it (rows are dicts: Python ints, floats, strings, ``None``)::

    db = FakeDatabase.create(spark, "/tmp/shop")
    db.createTable("dbo", "orders", "order_id int", "status varchar(20)").key("order_id")
    db.enableCdc("dbo", "orders")
    lsn = db.commit(lambda tx: tx.insert("dbo.orders", {"order_id": 1, "status": "new"}))
"""

from __future__ import annotations

import datetime
from typing import Any, Callable

from pyspark.sql import SparkSession

from mssql_cdc import _gateway

_FAKE = "io.mssqlcdc.fake.FakeCdcDatabase"


class _Script:
    """A Python transaction script as a JVM ``java.util.function.Consumer<Tx>`` (Py4J callback)."""

    def __init__(self, fn: Callable[[Any], Any]) -> None:
        self._fn = fn

    def accept(self, tx: Any) -> None:
        self._fn(tx)

    class Java:
        implements = ["java.util.function.Consumer"]


class TableHandle:
    """A created table (JVM ``FakeCdcDatabase.TableHandle``)."""

    def __init__(self, spark: SparkSession, jhandle: Any) -> None:
        self._spark = spark
        self._j = jhandle

    def key(self, *columns: str) -> "TableHandle":
        """Declares the unique index CDC uses (single or composite), before rows are inserted."""
        with _gateway.translated(self._spark):
            self._j.key(_gateway.string_array(self._spark, columns))
        return self


class FakeDatabase:
    """A ``FakeCdcDatabase`` writer; ``path`` is what ``fakePath`` names."""

    def __init__(self, spark: SparkSession, jdb: Any) -> None:
        self._spark = spark
        self._j = jdb

    @staticmethod
    def create(spark: SparkSession, path: str) -> "FakeDatabase":
        """Creates an empty database in ``path`` (created if missing; must not hold one already)."""
        return FakeDatabase(spark, FakeDatabase._open(spark, "create", path))

    @staticmethod
    def open(spark: SparkSession, path: str) -> "FakeDatabase":
        """Opens the database in ``path`` for writing."""
        return FakeDatabase(spark, FakeDatabase._open(spark, "open", path))

    @staticmethod
    def _open(spark: SparkSession, how: str, path: str) -> Any:
        cls = _gateway.jclass(spark, _FAKE)
        jpath = _gateway.jvm(spark).java.nio.file.Path.of(path, _gateway.string_array(spark, []))
        with _gateway.translated(spark):
            return getattr(cls, how)(jpath)

    @property
    def path(self) -> str:
        return str(self._j.path().toString())

    def serverTimeZone(self, zone: str) -> "FakeDatabase":  # noqa: N802 - the JVM's name
        """The server clock's zone (``tran_end_time`` is kept in it): an IANA id or ``UTC±HH:MM``."""
        with _gateway.translated(self._spark):
            self._j.serverTimeZone(zone)
        return self

    def createTable(self, schema: str, table: str, *columns: str) -> "TableHandle":  # noqa: N802
        """Creates ``schema.table`` with ``"<name> <type>[ computed]"`` columns; ``.key(...)`` declares its key."""
        with _gateway.translated(self._spark):
            return TableHandle(self._spark, self._j.createTable(schema, table, _gateway.string_array(self._spark, columns)))

    def enableCdc(self, schema: str, table: str, name: str = "", *columns: str) -> str:  # noqa: N802
        """Enables a capture instance (``<schema>_<table>`` unless ``name``); returns its name."""
        with _gateway.translated(self._spark):
            if not name:
                return str(self._j.enableCdc(schema, table))
            return str(self._j.enableCdc(schema, table, name, _gateway.string_array(self._spark, columns)))

    def commit(self, script: Callable[[Any], Any]) -> str:
        """Commits one transaction (``script(tx)``); returns its commit LSN in canonical hex."""
        _gateway.ensure_callbacks(self._spark)
        with _gateway.translated(self._spark):
            return str(self._j.commit(_Script(script)).hex())

    def commitAt(self, at: "datetime.datetime", script: Callable[[Any], Any]) -> str:  # noqa: N802
        """Commits one transaction with ``tran_end_time`` ``at`` (server-local, naive); returns its LSN."""
        _gateway.ensure_callbacks(self._spark)
        ldt = _gateway.jvm(self._spark).java.time.LocalDateTime.parse(at.isoformat())
        with _gateway.translated(self._spark):
            return str(self._j.commitAt(ldt, _Script(script)).hex())

    def idle(self) -> str:
        """An idle (no change rows) mapping entry, as capture writes; returns its LSN."""
        with _gateway.translated(self._spark):
            return str(self._j.idle().hex())

    def addColumn(self, table: str, declaration: str) -> str:  # noqa: N802
        """``ALTER TABLE ... ADD``; returns the DDL LSN."""
        with _gateway.translated(self._spark):
            return str(self._j.addColumn(table, declaration).hex())

    def cleanup(self, capture_instance: str, low_watermark_hex: str) -> None:
        """CDC cleanup: moves the instance's low watermark to the LSN, deleting change rows below it."""
        lsn = _gateway.jvm(self._spark).io.mssqlcdc.lsn.Lsn.parse(low_watermark_hex)
        with _gateway.translated(self._spark):
            self._j.cleanup(capture_instance, lsn)
