"""The Spark Connect route: a session without a JVM gateway reaches the pipeline through the catalog's
``CALL <catalog>.system.<procedure>(...)`` statements (docs/SQL.md), the only place the wrappers build SQL.

Every value is a constant only hex digits of it reach the statement (:func:`literal`; Spark 4.2 binds no
parameter markers in ``CALL``); the catalog name, the one identifier, is quoted with backticks. The server's errors come back as
pyspark's Connect exceptions whose text carries our ``MSSQL_CDC-<n>`` tag: they are raised as
:class:`CdcError` with that code, the original as the cause, as the classic route does.
"""

from __future__ import annotations

import contextlib
import math
import numbers
import re
from typing import Any, Dict, Iterator, List, Mapping, Optional, Sequence

from mssql_cdc.errors import CdcError

# The session configuration naming the catalog (spark.sql.catalog.<name> = io.mssqlcdc.catalog.CdcCatalog)
# the package calls over Spark Connect, and its default (docs/PYSPARK.md, "Spark Connect").
CATALOG_CONF = "spark.mssql_cdc.catalog"
DEFAULT_CATALOG = "cdc"

_CODE = re.compile(r"MSSQL_CDC-\d+")
_REASON = re.compile(r"^\(([\w.$]+)\) ")


def is_connect(spark: Any) -> bool:
    """Whether ``spark`` is a Spark Connect session (``pyspark.sql.connect.session.SparkSession``: what
    ``SparkSession.builder.remote(...)``, ``pyspark-client`` and Databricks' standard access mode give),
    told by its class, which needs no import of the Connect modules (and their gRPC) on a classic one."""
    return type(spark).__module__.startswith("pyspark.sql.connect.")


def catalog_name(spark: Any, explicit: Optional[str]) -> str:
    """The catalog to call: ``explicit``, else the session's ``spark.mssql_cdc.catalog``, else ``cdc``."""
    if explicit:
        return explicit
    return spark.conf.get(CATALOG_CONF, DEFAULT_CATALOG) or DEFAULT_CATALOG


def error_of(e: BaseException) -> Optional[CdcError]:
    """Our error in a server exception's text (``MSSQL_CDC-<n>``), or None."""
    text = e.getMessage() if hasattr(e, "getMessage") else str(e)
    text = str(text)
    m = _CODE.search(text)
    if m is None:
        return None
    reason = _REASON.match(text)
    message = text[m.start():]
    # the server's message ends where pyspark appends its own context (SQLSTATE, JVM stack)
    for cut in ("\n\nJVM stacktrace:", " SQLSTATE:"):
        if cut in message:
            message = message[: message.index(cut)]
    return CdcError(m.group(0), message.strip(), reason.group(1) if reason else None)


@contextlib.contextmanager
def translated() -> Iterator[None]:
    """Raises the server's errors of ours as :class:`CdcError`, the original as the cause."""
    try:
        yield
    except CdcError:
        raise
    except Exception as e:  # pyspark.errors.exceptions.connect.* (gRPC)
        err = error_of(e)
        if err is None:
            raise
        raise err from e


def _quote(identifier: str) -> str:
    return "`" + identifier.replace("`", "``") + "`"


def literal(value: Any) -> str:
    """A SQL constant for ``value`` that no value can break out of: text is its UTF-8 bytes in hex
    (``decode(unhex('…'), 'UTF-8')``: only hex digits reach the statement, whatever quotes, backslashes or
    SQL the value holds, and whatever ``spark.sql.parser.escapedStringLiterals`` says); numbers and
    booleans are written by Python from their values. Spark 4.2 binds no parameter markers in ``CALL``
    (``UNBOUND_SQL_PARAMETER``), so the values are constants."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, numbers.Integral):
        return str(int(value))  # INT, or BIGINT when it needs one: Spark widens to the parameter
    if isinstance(value, numbers.Real):
        v = float(value)
        text = repr(v) if math.isfinite(v) else ("'NaN'" if math.isnan(v) else ("'Infinity'" if v > 0 else "'-Infinity'"))
        return f"CAST({text} AS DOUBLE)"
    if isinstance(value, Mapping):
        return "map(" + ", ".join(f"{literal(str(k))}, {literal(str(v))}" for k, v in value.items()) + ")"
    if isinstance(value, (list, tuple)):
        return "array(" + ", ".join(literal(str(v)) for v in value) + ")"
    return f"decode(unhex('{str(value).encode('utf-8').hex()}'), 'UTF-8')"


#: Options that may carry a secret: a ``CALL``'s text is shown in the Spark UI and the server's logs, and
#: its hex-encoded values decode at a glance, so these stay in the catalog's configuration.
SECRET_OPTIONS = ("connectionstring", "password", "accesstoken")


def refuse_secrets(params: Mapping[str, Any]) -> None:
    """Raises :class:`CdcError` when a mapping parameter holds an option that may carry a secret."""
    for value in params.values():
        if isinstance(value, Mapping):
            for key in value:
                if str(key).strip().lower() in SECRET_OPTIONS:
                    raise CdcError(
                        None,
                        f"Option '{key}' cannot be sent over Spark Connect: a CALL statement's text is shown in the "
                        "Spark UI and the server's logs. Configure the connection on the catalog instead "
                        "(spark.sql.catalog.<name>.connectionString, set on the server) and leave it out of the "
                        "builder's options (docs/SQL.md).",
                        None,
                    )


def call(spark: Any, catalog: str, procedure: str, params: Mapping[str, Any]) -> List[Any]:
    """``CALL <catalog>.system.<procedure>(name => value, ...)``, each value a :func:`literal` (``None``
    values and empty mappings left out: the procedure's default applies). Returns the result rows. Options
    that may carry a secret are refused (:func:`refuse_secrets`)."""
    refuse_secrets(params)
    parts: List[str] = []
    for name, value in params.items():
        if value is None or (isinstance(value, Mapping) and not value):
            continue
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) or not re.fullmatch(r"[a-z_]+", procedure):
            raise ValueError(f"not a parameter or procedure name: {name!r}, {procedure!r}")
        parts.append(f"{name} => {literal(value)}")
    sql = f"CALL {_quote(catalog)}.system.{procedure}({', '.join(parts)})"
    with translated():
        return spark.sql(sql).collect()


def unsupported(what: str, instead: str) -> CdcError:
    """The error of an entry point that has no ``CALL`` procedure (it needs the driver's JVM)."""
    return CdcError(
        None,
        f"{what} is not available over Spark Connect (it needs the driver's JVM, which a Connect session "
        f"cannot reach); {instead} (docs/PYSPARK.md, \"Spark Connect\").",
        None,
    )


class Recorder:
    """What a Python builder's setters were given, in order, for a ``CALL`` (the Connect route of
    :class:`mssql_cdc._gateway.JvmBuilder`)."""

    def __init__(self) -> None:
        self.options: Dict[str, str] = {}
        self.settings: Dict[str, Any] = {}

    def set(self, method: str, args: Sequence[Any]) -> None:
        if method == "option":
            self.options[str(args[0])] = args[1]
        else:
            self.settings[method] = args[0] if len(args) == 1 else tuple(args)

    def table(self) -> Optional[str]:
        """The catalog's ``table`` argument: the ``captureInstance`` option (the catalog resolves a capture
        instance to its table)."""
        return self.options.get("captureInstance")

    def reader_options(self) -> Dict[str, str]:
        """The reader options but ``captureInstance`` (the ``table`` argument carries it)."""
        return {k: v for k, v in self.options.items() if k != "captureInstance"}


__all__: List[str] = []
