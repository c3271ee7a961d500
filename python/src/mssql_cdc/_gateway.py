"""The session's Py4J gateway: the only place the wrappers reach the JVM from."""

from __future__ import annotations

import contextlib
from typing import Any, Iterator, Optional, Sequence, Tuple

from pyspark.sql import SparkSession

from mssql_cdc import _connect
from mssql_cdc.errors import CdcError


def jvm(spark: SparkSession) -> Any:
    """The JVM view of a classic (Py4J) session; a clear error for a Spark Connect session."""
    view = getattr(spark, "_jvm", None)
    if view is None:
        raise CdcError(
            None,
            "mssql_cdc's Python API needs a classic SparkSession with a JVM (Py4J gateway); this session has "
            "none (Spark Connect?). The sources work over Spark Connect as they are "
            "(spark.readStream.format(\"mssql_cdc\")); run the pipeline (CdcStream) where the driver JVM is.",
            None,
        )
    return view


def jsession(spark: SparkSession) -> Any:
    jvm(spark)
    return spark._jsparkSession  # the documented way to reach the JVM session


def jclass(spark: SparkSession, name: str) -> Any:
    """A JVM class by name; a clear error when the jar is not on the classpath."""
    view = jvm(spark)
    cls = view
    for part in name.split("."):
        cls = getattr(cls, part)
    from py4j.java_gateway import JavaClass

    if not isinstance(cls, JavaClass):
        raise CdcError(
            None,
            f"The JVM class {name} is not on the Spark classpath. Add the mssql-cdc-spark jar: "
            "spark.jars=<path>/mssql-cdc-spark_2.13-<v>.jar, or --packages io.mssqlcdc:mssql-cdc-spark_2.13:<v>, "
            "or a Databricks cluster library (docs/PYSPARK.md).",
            None,
        )
    return cls


@contextlib.contextmanager
def translated(spark: SparkSession) -> Iterator[None]:
    """Raises our JVM errors (``MSSQL_CDC-<n>``) as :class:`CdcError`, the original as the cause: a Py4J
    error, or the pyspark exception (``IllegalArgumentException``...) pyspark made of it (its ``_origin``
    is the JVM throwable)."""
    from py4j.protocol import Py4JJavaError

    try:
        yield
    except Py4JJavaError as e:
        err = CdcError.from_java(e.java_exception, jvm(spark))
        if err.code is None:
            raise
        raise err from e
    except Exception as e:  # pyspark.errors.exceptions.captured.CapturedException and subclasses
        origin = getattr(e, "_origin", None)
        if origin is None:
            raise
        err = CdcError.from_java(origin, jvm(spark))
        if err.code is None:
            raise
        raise err from e


def _gateway(spark: SparkSession) -> Any:
    jvm(spark)
    return spark.sparkContext._gateway


def string_array(spark: SparkSession, values: Sequence[str]) -> Any:
    """A JVM ``String[]`` (for varargs parameters)."""
    gw = _gateway(spark)
    arr = gw.new_array(gw.jvm.java.lang.String, len(values))
    for i, v in enumerate(values):
        arr[i] = v
    return arr


def ensure_callbacks(spark: SparkSession) -> None:
    """Starts Py4J's callback server (as pyspark's ``foreachBatch`` does), so the JVM can call a Python
    function passed as a Java interface."""
    from pyspark.java_gateway import ensure_callback_server_started

    ensure_callback_server_started(_gateway(spark))


class JvmBuilder:
    """A Python builder over a JVM one (``CdcStream.Builder``, ``Backfill``, ``ApplyChanges.Builder``...):
    setters forward to the JVM method of the same name, with the JVM's errors as :class:`CdcError`, and
    return ``self``. On a Spark Connect session (``jbuilder`` None, ``catalog`` the catalog to call) they
    record their arguments instead, for the builder's ``CALL`` (mssql_cdc._connect)."""

    def __init__(self, spark: SparkSession, jbuilder: Any, catalog: Optional[str] = None) -> None:
        self._spark = spark
        self._j = jbuilder
        self._catalog = catalog
        self._rec = _connect.Recorder() if jbuilder is None else None

    def _set(self, method: str, *args: Any) -> Any:
        if self._rec is not None:
            self._rec.set(method, args)
            return self
        with translated(self._spark):
            getattr(self._j, method)(*args)
        return self

    def _call(self, procedure: str, params: Any) -> Any:
        assert self._catalog is not None
        return _connect.call(self._spark, self._catalog, procedure, params)


def builder(spark: SparkSession, class_name: str, catalog: Optional[str]) -> Tuple[Any, Optional[str]]:
    """``(JVM builder, None)`` of ``class_name`` on a classic session; ``(None, catalog name)`` on a Spark
    Connect one (``catalog``, else the session's ``spark.mssql_cdc.catalog``, else ``cdc``)."""
    if _connect.is_connect(spark):
        return None, _connect.catalog_name(spark, catalog)
    return jclass(spark, class_name).builder(jsession(spark)), None
