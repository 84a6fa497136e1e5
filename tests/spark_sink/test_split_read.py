"""Values split while the Python Kafka source reads them (``read_kafka(split_values=...)``):
the same rows as Spark's split of raw rows, decoded and applied alike."""

from __future__ import annotations

import json

import pytest

from spark_sink.wire import ValueFormat, ValueSplitter

from . import golden

pytestmark = pytest.mark.spark

_SCHEMA = b'{"type":"struct","fields":[{"type":"int32","optional":false,"field":"payload"}]}'


def _value(schema: bytes, payload: dict) -> bytes:
    return b'{"schema":' + schema + b',"payload":' + json.dumps(payload, separators=(",", ":")).encode() + b"}"


def test_splitter_json_names_each_version_once_and_cuts_at_the_first_mark() -> None:
    split = ValueSplitter(ValueFormat.JSON)
    first = split("t", _value(_SCHEMA, {"payload": 1}))
    second = split("t", _value(_SCHEMA, {"payload": 2}))
    other = split("t", _value(_SCHEMA.replace(b"int32", b"int64"), {"payload": 3}))
    assert first == (first[0], _SCHEMA, b'{"payload":1}')  # a column named payload stays in the body
    assert second == (first[0], None, b'{"payload":2}')  # schema text only on a version's first record
    assert other[0] != first[0] and other[1] is not None
    assert split("t", _value(_SCHEMA, {"payload": 4}))[1:] == (None, b'{"payload":4}')
    with pytest.raises(ValueError, match="embedded schema"):
        split("t", b'{"payload":1}')


def test_splitter_avro_and_schemaless() -> None:
    avro = ValueSplitter(ValueFormat.AVRO)
    assert avro("t", b"\x00\x00\x00\x00\x07body") == (b"\x00\x00\x00\x07", b"", b"body")
    assert avro("t", b"\x00\x00\x00\x00\x07more") == (b"\x00\x00\x00\x07", None, b"more")
    plain = ValueSplitter(ValueFormat.JSON_SCHEMALESS)
    assert plain("a.b", b"{}") == (b"a.b", b"", b"{}")


def test_spark_split_cuts_at_the_first_mark(spark) -> None:
    from spark_sink.json_decode import split_json
    rows = [(None, _value(_SCHEMA, {"payload": 1}), "t", 0, 0, None), (None, None, "t", 0, 1, None)]
    raw = spark.createDataFrame(rows, "key binary, value binary, topic string, partition int, offset long, "
                                      "timestamp timestamp")
    got = split_json(raw, with_schema=True).orderBy("offset").collect()
    assert bytes(got[0].body) == b'{"payload":1}}' and got[1].body is None  # from_json ignores the last brace


def _decoded(tables: dict, topic: str) -> list[dict]:
    return [r.asDict() for r in tables[topic].orderBy("__partition", "__offset").collect()]


def test_split_read_decodes_as_raw_rows(spark, kafka_bootstrap, prefix) -> None:
    """Every semantic type (all_types); the mirror tests read split rows through schema changes."""
    from spark_sink import DecodeOptions, decode_batch, read_kafka
    records = [r.renamed(prefix) for r in golden.load("basic") if r.topic.endswith(".all_types")]
    golden.produce(kafka_bootstrap, records, partitions=2)
    pattern = rf"{prefix}\.inventory\.all_types"
    raw = decode_batch(read_kafka(spark, kafka_bootstrap, topic_pattern=pattern, streaming=False), DecodeOptions())
    split = read_kafka(spark, kafka_bootstrap, topic_pattern=pattern, streaming=False, split_values="json")
    assert split.columns == ["key", "topic", "partition", "offset", "timestamp", "schema_key", "schema", "body"]
    # one schema text per version and input partition, not one per record
    texts = split.filter("schema is not null").groupBy("topic", "partition", "schema_key").count()
    assert texts.filter("count > 1").count() == 0
    tables = decode_batch(split, DecodeOptions())
    assert sorted(tables) == sorted(raw) and len(tables) == 1
    for topic in tables:
        assert _decoded(tables, topic) == _decoded(raw, topic), topic


def test_apply_takes_the_key_columns_from_the_discovery_job(spark, kafka_bootstrap, prefix, workdir,
                                                             monkeypatch) -> None:
    """The job that discovers a batch's schema versions also samples a key per topic, so the applier runs no
    key lookup job of its own (issue 25: a Spark job per topic and batch that only did bookkeeping)."""
    from deltalake import DeltaTable

    from spark_sink import DecodeOptions, DeltaTarget, apply_changes, read_kafka
    from spark_sink import applier
    from spark_sink.reader import discover_batch

    from . import expected
    golden.produce(kafka_bootstrap, [r.renamed(prefix) for r in golden.load("basic")
                                     if r.topic.endswith(".customers")], partitions=2)
    split = read_kafka(spark, kafka_bootstrap, topic_pattern=rf"{prefix}\.inventory\.customers", streaming=False,
                       split_values="json")
    sampled = discover_batch(split, DecodeOptions()).keys
    assert [applier.key_fields(k, t, DecodeOptions()) for t, k in sampled.items()] == [["id"]]

    def no_lookup(*args: object) -> list[str]:
        raise AssertionError("a key lookup job ran although discovery sampled a key")
    monkeypatch.setattr(applier, "key_columns", no_lookup)
    apply_changes(split, DeltaTarget(workdir / "customers"))
    rows = DeltaTable(str(workdir / "customers")).to_pyarrow_table().to_pylist()
    columns = expected.CUSTOMERS_COLUMNS
    assert {r["id"]: tuple(r[c] for c in columns[1:]) for r in rows} == expected.CUSTOMERS_FINAL
