"""Over Spark Connect, ``Finalization.tracking(...).joinAll`` waits through ``CALL await_tracking`` for each
query a builder started with it (no Spark: a stand-in session records the statements)."""
import types

from mssql_cdc import CdcStream, Finalization

# A class whose module is a Connect session's: the package takes the CALL route for it.
_Session = types.new_class("SparkSession")
_Session.__module__ = "pyspark.sql.connect.session"


class _Streams:
    def get(self, query_id):
        raise RuntimeError("[STREAMING_QUERY_NOT_FOUND] ended")  # an availableNow run that already ended


class _Conf:
    def get(self, key, default=None):
        return default


class _Result:
    def __init__(self, rows):
        self._rows = rows

    def collect(self):
        return self._rows


def _session(answers):
    s = _Session()
    s.sent = []
    s.streams = _Streams()
    s.conf = _Conf()

    def sql(text):
        s.sent.append(text)
        for procedure, rows in answers.items():
            if f".system.{procedure}(" in text:
                return _Result(rows)
        raise AssertionError("unexpected statement: " + text)

    s.sql = sql
    return s


def _hex(text):
    return f"decode(unhex('{text.encode().hex()}'), 'UTF-8')"


def test_join_all_waits_for_every_query_started_with_the_tracking():
    started = [{"capture_instance": ci, "query_id": qid, "run_id": "r", "name": ci, "table": ci}
               for ci, qid in (("dbo_a", "q-a"), ("dbo_b", "q-b"))]
    spark = _session({"start_many": started, "await_tracking": [{"done": True}]})
    tracking = Finalization.tracking(spark, "/ctl", "minute")
    queries = (CdcStream.builder(spark).target("/b/{ci}").appId("{ci}").checkpoint("/c/{ci}")
               .attach(tracking).trigger("availableNow").startMany(["dbo_a", "dbo_b"]))
    assert list(queries) == ["dbo_a", "dbo_b"]
    assert f"controlTable => {_hex('/ctl')}" in spark.sent[0]
    assert f"granularity => {_hex('minute')}" in spark.sent[0]

    assert tracking.joinAll(30) is True
    waits = spark.sent[1:]
    assert [w.split("queryId => ")[1].split(", timeoutSeconds")[0] for w in waits] == [_hex("q-a"), _hex("q-b")]
    assert all(w.startswith("CALL `cdc`.system.await_tracking(") and "timeoutSeconds => CAST(" in w for w in waits)


def test_join_all_is_false_when_a_query_has_not_ended_in_time():
    started = [{"query_id": "q-1", "run_id": "r", "name": "n", "table": "dbo.orders",
                "capture_instance": "dbo_orders", "bronze": "/b"}]
    spark = _session({"start_stream": started, "await_tracking": [{"done": False}]})
    tracking = Finalization.tracking(spark, "/ctl")
    (CdcStream.builder(spark).option("captureInstance", "dbo_orders").target("/b").appId("o").checkpoint("/c")
     .attach(tracking).toDelta())
    assert tracking.joinAll(0) is False
    assert "timeoutSeconds => CAST(0.0 AS DOUBLE)" in spark.sent[-1]


def test_a_tracking_that_started_nothing_has_nothing_to_wait_for():
    spark = _session({})
    assert Finalization.tracking(spark, "/ctl").joinAll(5) is True
    assert spark.sent == []
