"""Local-mode Spark against a real broker filled with real Debezium's golden records:
read (Python Kafka data source), decode, apply to Delta and Parquet, restart from checkpoints."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

pytest.importorskip("pyspark")
pytest.importorskip("deltalake")

from deltalake import DeltaTable  # noqa: E402

from spark_sink import (DecodeOptions, DeltaTarget, FanOut, ParquetTarget, ValueFormat,  # noqa: E402
                        apply_changes, decode_batch, decode_split, read_changes, read_current, read_kafka)
from spark_sink.mirror import main as mirror  # noqa: E402

from . import expected, golden  # noqa: E402

pytestmark = pytest.mark.spark


def _load(bootstrap: str, flavour: str, prefix: str, upto: int | None = None, after: int | None = None,
          partitions: int = 1) -> None:
    records = [r.renamed(prefix) for r in golden.load(flavour)
               if (upto is None or r.seq <= upto) and (after is None or r.seq > after)]
    golden.produce(bootstrap, records, partitions)


def _delta_rows(path: Path, key: str, columns: tuple[str, ...]) -> dict:
    rows = DeltaTable(str(path)).to_pyarrow_table().to_pylist()
    return {r[key]: tuple(r[c] for c in columns[1:]) for r in rows}


def _micros(value: dt.timedelta) -> int:
    return (value.days * 86_400 + value.seconds) * 1_000_000 + value.microseconds


def _as_stored(row: dict) -> dict:
    """Expected values as a lake stores them: TIME as microseconds, timestamps naive UTC."""
    out = dict(row)
    out["c_time"] = _micros(row["c_time"])
    out["c_float"] = pytest.approx(row["c_float"], rel=1e-6)
    return out


def test_batch_decode_gives_source_values(spark, kafka_bootstrap, prefix) -> None:
    _load(kafka_bootstrap, "basic", prefix)
    raw = read_kafka(spark, kafka_bootstrap, topic_pattern=rf"{prefix}\..*", streaming=False)
    tables = decode_batch(raw, DecodeOptions())
    assert sorted(tables) == [f"{prefix}.inventory.{t}" for t in ("all_types", "audit_log", "customers", "orders")]
    rows = [r.asDict() for r in tables[f"{prefix}.inventory.all_types"].orderBy("__offset").collect()]
    final = {r["id"]: r for r in rows if r["__op"] != "d"}
    for key, want in expected.all_types("basic").items():
        got = {c: final[key][c] for c in want}
        want = dict(want, c_timestamp=want["c_timestamp"].replace(tzinfo=None),  # collect(): naive, session TZ UTC
                    c_float=pytest.approx(want["c_float"], rel=1e-6))
        assert got == want, key
    schema = {f.name: f.dataType.simpleString() for f in tables[f"{prefix}.inventory.all_types"].schema}
    assert (schema["c_decimal"], schema["c_datetime"], schema["c_timestamp"], schema["c_time"], schema["c_set"]) == \
        ("decimal(10,2)", "timestamp_ntz", "timestamp", "interval day to second", "array<string>")


def test_mirror_to_delta_survives_restart_and_alter(spark, kafka_bootstrap, prefix, workdir) -> None:
    """Stop after the PK change, restart from the checkpoint; the ALTER TABLE ADD COLUMN and
    everything after it arrive in the second run."""
    _load(kafka_bootstrap, "basic", prefix, upto=41)
    argv = ["--bootstrap-servers", kafka_bootstrap, "--topics-pattern", rf"{prefix}\.inventory\..*",
            "--target", str(workdir / "lake"), "--checkpoint", str(workdir / "ckpt"), "--once"]
    assert mirror(argv, spark) == 0
    customers = workdir / "lake" / "inventory" / "customers"
    assert _delta_rows(customers, "id", expected.CUSTOMERS_COLUMNS[:4]) == expected.CUSTOMERS_BEFORE_ALTER

    _load(kafka_bootstrap, "basic", prefix, after=41)
    assert mirror(argv, spark) == 0
    assert _delta_rows(customers, "id", expected.CUSTOMERS_COLUMNS) == expected.CUSTOMERS_FINAL
    assert _delta_rows(workdir / "lake" / "inventory" / "orders", "order_number",
                       ("order_number", "order_date", "purchaser", "quantity", "product_id")) == expected.ORDERS_FINAL
    assert _delta_rows(workdir / "lake" / "inventory" / "audit_log", "id", ("id", "msg")) == expected.AUDIT_LOG_CAPTURED
    all_types = {r["id"]: r for r in DeltaTable(str(workdir / "lake" / "inventory" / "all_types")).to_pyarrow_table().to_pylist()}
    for key, want in expected.all_types("basic").items():
        assert {c: all_types[key][c] for c in want} == _as_stored(want), key
    version = DeltaTable(str(customers)).version()
    assert mirror(argv, spark) == 0  # nothing new: no new commit
    assert DeltaTable(str(customers)).version() == version


def _same_as_through_a_dataframe(spark_path: Path, arrow_path: Path) -> None:
    """The Delta table DeltaTarget merged from Arrow (the applier's one-job path) equals the one the same batches
    gave through Target.apply(DataFrame) (cache + stats job): rows, columns and Arrow types."""
    frame, arrow = (DeltaTable(str(p)).to_pyarrow_table() for p in (spark_path, arrow_path))
    assert arrow.schema == frame.schema
    assert arrow.sort_by("id").to_pylist() == frame.sort_by("id").to_pylist()


def test_apply_twice_and_truncate(spark, kafka_bootstrap, prefix, workdir) -> None:
    records = [r.renamed(prefix) for r in golden.load("basic-mysql")]
    audit = golden.by_topic(records, ".audit_log")
    golden.produce(kafka_bootstrap, audit)
    topic = audit[0].topic
    raw = read_kafka(spark, kafka_bootstrap, topics=[topic], streaming=False)
    target = DeltaTarget(workdir / "audit")
    # FanOut is not an ArrowMerge: the applier hands it a DataFrame, the path of every other target.
    through_frame = FanOut(DeltaTarget(workdir / "audit-frame"))
    assert apply_changes(raw, target) == apply_changes(raw, through_frame)
    first = _delta_rows(workdir / "audit", "id", ("id", "msg"))
    assert first == expected.AUDIT_LOG_CAPTURED
    apply_changes(raw, target)  # at-least-once: the whole batch again
    assert _delta_rows(workdir / "audit", "id", ("id", "msg")) == first

    # op t (skipped.operations=none): empties the table; only later changes in the batch stay
    insert = audit[0]  # snapshot r of id 1, re-sent after the truncate at a later position
    truncate = golden.truncate_record(audit[3], pos=20_000)
    later = golden.GoldenRecord(insert.seq, insert.topic, insert.key,
                                insert.value.replace(b'"pos":6359', b'"pos":20001'), insert.headers, {})
    earlier = golden.GoldenRecord(insert.seq, insert.topic, audit[1].key,
                                  audit[1].value.replace(b'"pos":6359', b'"pos":19999'), insert.headers, {})
    start = {topic: {"0": len(audit)}}
    golden.produce(kafka_bootstrap, [earlier, truncate, later])
    import json
    batch = read_kafka(spark, kafka_bootstrap, topics=[topic], streaming=False,
                       starting_offsets=json.dumps(start))
    results = apply_changes(batch, target, keys=["id"])
    assert results[0].truncated and results[0].changes == 3 and results[0].applied == 1
    assert _delta_rows(workdir / "audit", "id", ("id", "msg")) == {1: ("created",)}
    apply_changes(raw, through_frame)  # the first batch again, then this one, as the Arrow path got them
    assert apply_changes(batch, through_frame, keys=["id"]) == results
    _same_as_through_a_dataframe(workdir / "audit-frame", workdir / "audit")


def test_parquet_target_multi_partition_mysql(spark, kafka_bootstrap, prefix, workdir) -> None:
    _load(kafka_bootstrap, "basic-mysql", prefix, partitions=2)
    argv = ["--bootstrap-servers", kafka_bootstrap, "--topics-pattern", rf"{prefix}\.inventory\.(customers|orders)",
            "--target", str(workdir / "lake"), "--checkpoint", str(workdir / "ckpt"), "--once",
            "--format", "parquet"]
    assert mirror(argv, spark) == 0
    customers = ParquetTarget(workdir / "lake" / "inventory" / "customers")
    rows = {r["id"]: tuple(r[c] for c in expected.CUSTOMERS_COLUMNS[1:]) for r in read_current(spark, customers).collect()}
    assert rows == expected.CUSTOMERS_FINAL
    orders = read_current(spark, ParquetTarget(workdir / "lake" / "inventory" / "orders")).collect()
    assert {r["order_number"]: (r["order_date"], r["purchaser"], r["quantity"], r["product_id"]) for r in orders} \
        == expected.ORDERS_FINAL
    changelog = spark.read.parquet(str(workdir / "lake" / "inventory" / "customers" / "changelog")) \
        .select("__op", "__source_gtid").collect()  # one Spark job for both checks
    assert len(changelog) == 11  # every change: r x4, c, u, d, d (PK change), c, u, c; no tombstones
    assert {r["__source_gtid"].split(":")[1] for r in changelog if r["__op"] == "d"} == {"14", "15"}


def test_avro_through_schema_registry(spark, kafka_bootstrap, prefix, workdir, schema_registry) -> None:
    _load(kafka_bootstrap, "basic-mysql-avro", prefix)
    raw = read_kafka(spark, kafka_bootstrap, topics=[f"{prefix}.inventory.all_types"], streaming=False)
    decode = DecodeOptions(value_format=ValueFormat.AVRO, schema_registry_url=f"{schema_registry}/basic-mysql-avro")
    apply_changes(raw, DeltaTarget(workdir / "all_types"), decode=decode)
    stored = {r["id"]: r for r in DeltaTable(str(workdir / "all_types")).to_pyarrow_table().to_pylist()}
    assert sorted(stored) == [1, 3, 4]
    for key, want in expected.all_types("basic-mysql").items():
        assert {c: stored[key][c] for c in want} == _as_stored(want), key


def test_avro_decodes_to_the_json_dataframe(spark, kafka_bootstrap, prefix, schema_registry) -> None:
    """The same change events of real Debezium, JsonConverter and AvroConverter: Spark's typed
    rows are equal, split on read (Python source) and split by Spark from raw rows."""
    _load(kafka_bootstrap, "basic-mysql", f"{prefix}j")
    _load(kafka_bootstrap, "basic-mysql-avro", f"{prefix}a")
    registry = {"schema.registry.url": f"{schema_registry}/basic-mysql-avro"}
    tables = "(all_types|customers)"  # every column type; two schema versions (ALTER TABLE ADD COLUMN)
    json_split = read_kafka(spark, kafka_bootstrap, topic_pattern=rf"{prefix}j\.inventory\.{tables}", streaming=False,
                            split_values="json")
    avro_split = read_kafka(spark, kafka_bootstrap, topic_pattern=rf"{prefix}a\.inventory\.{tables}", streaming=False,
                            split_values="avro", registry_options=registry)
    avro_raw = read_kafka(spark, kafka_bootstrap, topic_pattern=rf"{prefix}a\.inventory\.{tables}", streaming=False)
    by_json = decode_split(json_split, DecodeOptions())
    avro_options = DecodeOptions(value_format=ValueFormat.AVRO, schema_registry_url=registry["schema.registry.url"])
    by_avro, by_avro_raw = decode_split(avro_split, avro_options), decode_batch(avro_raw, avro_options)
    assert len(by_json) == 2

    def rows(df) -> list[dict]:  # two runs of the reference: wall clock and server UUID differ
        return [{k: v for k, v in r.asDict().items() if k not in ("__source_ts_ms", "__topic", "__timestamp")}
                | {"__source_gtid": (r["__source_gtid"] or ":").split(":")[1]} for r in df.orderBy("__offset").collect()]
    for topic, df in by_json.items():
        twin = topic.replace(f"{prefix}j.", f"{prefix}a.")
        assert by_avro[twin].schema == df.schema == by_avro_raw[twin].schema, topic
        want = rows(df)
        assert want and rows(by_avro[twin]) == want and rows(by_avro_raw[twin]) == want, topic


def test_read_changes_typed_stream_with_rate_limit(spark, kafka_bootstrap, prefix, workdir) -> None:
    records = golden.by_topic([r.renamed(prefix) for r in golden.load("basic")], ".orders")
    golden.produce(kafka_bootstrap, records)
    seen: list[tuple[int, list]] = []
    stream = read_changes(spark, kafka_bootstrap, topics=[records[0].topic], max_offsets_per_trigger=3)
    query = (stream.writeStream.option("checkpointLocation", str(workdir / "ckpt"))
             .foreachBatch(lambda df, batch_id: seen.append((batch_id, df.collect()))).start())
    query.processAllAvailable()
    query.stop()
    rows = [r for _, batch in seen for r in batch]
    assert len([b for b, batch in seen if batch]) >= 3  # 8 records, at most 3 per trigger
    assert [r["__offset"] for r in rows] == list(range(8))
    assert rows[4]["order_date"] == dt.date(2024, 2, 29) and rows[4]["__op"] == "c"
    assert type(stream.schema["order_date"].dataType).__name__ == "DateType"


def test_crash_mid_stream_and_restart_is_exactly_once(spark, kafka_bootstrap, prefix, workdir) -> None:
    """The query dies twice: once after batch 2 reached the table (before Spark committed it),
    once inside batch 4 before anything was written. Each restart re-runs the failed batch
    with the same id and offsets; the table ends equal to the source, each batch applied once."""
    from pyspark.errors import StreamingQueryException
    records = golden.by_topic([r.renamed(prefix) for r in golden.load("basic")], ".customers")
    golden.produce(kafka_bootstrap, records)
    target = DeltaTarget(workdir / "customers")
    crashes = {2: "after", 4: "before"}
    applied: list[tuple[int, bool]] = []

    def batch(df, batch_id: int) -> None:
        if crashes.get(batch_id) == "before":
            del crashes[batch_id]
            raise RuntimeError(f"injected crash before applying batch {batch_id}")
        for result in apply_changes(df, target, batch_id=batch_id):
            applied.append((batch_id, result.skipped))
        if crashes.get(batch_id) == "after":
            del crashes[batch_id]
            raise RuntimeError(f"injected crash after applying batch {batch_id}")

    def run() -> None:
        query = (read_kafka(spark, kafka_bootstrap, topics=[records[0].topic], max_offsets_per_trigger=3)
                 .writeStream.option("checkpointLocation", str(workdir / "ckpt")).foreachBatch(batch).start())
        try:
            query.processAllAvailable()
        finally:
            query.stop()

    for _ in range(2):
        with pytest.raises(StreamingQueryException, match="injected crash"):
            run()
    run()
    assert crashes == {}
    assert (2, True) in applied  # batch 2 re-run after the crash: recognised, skipped
    assert [b for b, skipped in applied if not skipped] == sorted({b for b, _ in applied})
    assert _delta_rows(workdir / "customers", "id", expected.CUSTOMERS_COLUMNS) == expected.CUSTOMERS_FINAL


def test_schemaless_json_typed_from_schema_change_topic(spark, kafka_bootstrap, prefix, workdir) -> None:
    """schemas.enable=false: no schema in the records; the mirror rebuilds each table's schema
    from the schema-change topic (including the ALTER) and types the columns from it."""
    records = [golden.schemaless(r.renamed(prefix)) for r in golden.load("basic")]
    golden.produce(kafka_bootstrap, records)
    # The tables checked below (every column type; the ALTER), the schema-change and the transaction topic, which the
    # pattern matches but must not become tables; orders and audit_log would only add Spark jobs to the batch.
    pattern = rf"{prefix}(\.transaction|\.inventory\.(customers|all_types))?"
    argv = ["--bootstrap-servers", kafka_bootstrap, "--topics-pattern", pattern,
            "--target", str(workdir / "lake"), "--checkpoint", str(workdir / "ckpt"), "--once",
            "--value-format", "json-schemaless", "--schema-change-topic", prefix]
    assert mirror(argv, spark) == 0
    assert _delta_rows(workdir / "lake" / "inventory" / "customers", "id", expected.CUSTOMERS_COLUMNS) \
        == expected.CUSTOMERS_FINAL
    all_types = {r["id"]: r for r in DeltaTable(str(workdir / "lake" / "inventory" / "all_types")).to_pyarrow_table().to_pylist()}
    for key, want in expected.all_types("basic").items():
        assert {c: all_types[key][c] for c in want} == _as_stored(want), key
    assert not (workdir / "lake" / prefix).exists() and not (workdir / "lake" / "transaction").exists()
