"""A Connect session's CALL text is shown in the Spark UI: options that may carry a secret never go into it."""
import pytest

from mssql_cdc import CdcError
from mssql_cdc._connect import call, literal


class _NoSpark:
    def sql(self, text):  # pragma: no cover - reached only if the refusal failed
        raise AssertionError("a statement was sent: " + text)


@pytest.mark.parametrize("key", ["connectionString", "CONNECTIONSTRING", " password ", "accessToken"])
def test_secret_options_are_refused_before_any_statement(key):
    with pytest.raises(CdcError) as e:
        call(_NoSpark(), "cdc", "start_stream", {"table": "dbo.orders", "options": {key: "s3cret"}})
    assert str(e.value).startswith(f"Option '{key}' cannot be sent over Spark Connect: a CALL statement's text")
    assert "s3cret" not in str(e.value)


def test_other_values_are_hex_constants():
    assert literal("a'b") == "decode(unhex('612762'), 'UTF-8')"
    assert literal(3) == "3"
    assert literal(True) == "true"
