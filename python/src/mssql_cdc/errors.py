"""The one Python exception type: a JVM error of this library, with its stable code."""

from __future__ import annotations

from typing import Any, Optional


class CdcError(Exception):
    """An error raised by mssql-cdc-spark's JVM code, seen from Python.

    ``code`` is the stable tag (``"MSSQL_CDC-700"``) that the JVM's ``CdcErrors.codeOf`` finds in the
    exception's cause chain (``None`` for an error that is not one of ours); ``java_class`` is the Java
    exception's class, e.g. ``io.mssqlcdc.errors.CdcConfigException``. The message is the JVM's: it names
    the option or value and says what to do. The Py4J error is the ``__cause__``.

    Errors of a running query reach Python as pyspark's ``StreamingQueryException`` from
    ``awaitTermination()``; their text carries the same ``MSSQL_CDC-<n>`` tag (docs/PYSPARK.md).
    """

    def __init__(self, code: Optional[str], message: str, java_class: Optional[str]) -> None:
        super().__init__(message)
        self.code = code
        self.java_class = java_class

    @classmethod
    def from_java(cls, throwable: Any, jvm: Any) -> "CdcError":
        """From a JVM throwable (a Py4J ``JavaObject``), asking the JVM (``CdcErrors.codeOf``) for the code."""
        code = jvm.io.mssqlcdc.errors.CdcErrors.codeOf(throwable)
        tag = str(code.get().tag()) if code.isPresent() else None
        return cls(tag, str(throwable.getMessage()), str(throwable.getClass().getName()))
