"""Benchmark: Avro vs JSON decoding of the same change events by spark_sink on local[2].

    .venv/bin/python bench/spark_avro.py [--events 100000] [--keys 20000]

Uses ``spark_apply.broker_session`` (private Tansu, the JsonConverter ``customers`` events of
``spark_apply.produce``) and produces the same events a second time as AvroConverter would
(Confluent wire format; the writer schema is real Debezium's for that table, golden
``basic-avro``, registered in an in-process registry). Every timed step runs once untimed
first. Timed: the read floor (raw Avro rows read + count), the JSON decode (``spark_apply``'s
decode step) and the Avro decode (values split and read from Avro while the Python source
reads them, ``read_kafka(split_values="avro")``, then the same typed rows into ``noop``).
The last line is one JSON object: ``read_eps``, ``json_decode_eps``, ``avro_decode_eps`` and
the ratios ``avro_vs_read`` and ``avro_vs_json``.
"""

from __future__ import annotations

import argparse
import base64
import io
import json
import os
from typing import Iterator

import spark_apply  # bench/ is the script's directory; it puts the repository root on sys.path

from tests.support.schema_registry import SchemaRegistryServer
from tests.support.shared import REFERENCE_EXPECTED

SUBJECT = "dbserver1.inventory.customers-value"


def _golden_avro() -> tuple[str, bytes]:
    """(writer schema text, Avro body of the first customers insert) of real Debezium."""
    schemas = json.loads((REFERENCE_EXPECTED / "basic-avro" / "avro_schemas.json").read_text())["subjects"]
    by_id = {v["id"]: v["schema"] for v in schemas[SUBJECT]}
    for line in (REFERENCE_EXPECTED / "basic-avro" / "events.jsonl").read_text().splitlines():
        rec = json.loads(line)
        value = rec["value"]
        if rec["topic"].endswith(".customers") and value and value["schema_id"] in by_id:
            body = base64.b64decode(value["avro_base64"])
            return by_id[value["schema_id"]], body[5:]
    raise SystemExit("no Avro customers record in the basic-avro golden")


def produce_avro(bootstrap: str, topic: str, events: int, keys: int, schema_id: int, schema_text: str) -> None:
    import fastavro

    from spark_sink.wire import _strip_logical_types  # the reader's own view of the schema
    writer = fastavro.parse_schema(_strip_logical_types(json.loads(schema_text)))
    _, template_body = _golden_avro()
    template = fastavro.schemaless_reader(io.BytesIO(template_body), writer)
    header = b"\0" + schema_id.to_bytes(4, "big")

    def messages() -> Iterator[tuple[bytes, bytes, int]]:
        for key_id, op, row, pos in spark_apply.changes(events, keys):  # the same events as spark_apply.produce
            datum = dict(template, before=None if op == "c" else row, after=None if op == "d" else row, op=op,
                         source=dict(template["source"], pos=pos, row=0))
            out = io.BytesIO()
            fastavro.schemaless_writer(out, writer, datum)
            yield str(key_id).encode(), header + out.getvalue(), key_id % 2

    spark_apply.produce_all(bootstrap, topic, messages())


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--events", type=int, default=100_000)
    ap.add_argument("--keys", type=int, default=20_000)
    args = ap.parse_args()
    with SchemaRegistryServer() as registry, spark_apply.broker_session(args.events, args.keys) as (spark, raw):
        from spark_sink import DecodeOptions, TimeMode, decode_split, read_kafka, split_records
        schema_text, _ = _golden_avro()
        schema_id = registry.state.register(SUBJECT, schema_text)[1]["id"]
        avro_topic = raw.topic.replace(".customers", ".customers_avro")
        produce_avro(raw.bootstrap, avro_topic, args.events, args.keys, schema_id, schema_text)
        registry_options = {"schema.registry.url": registry.url}
        json_options = DecodeOptions(time_mode=TimeMode.MICROS)
        avro_options = DecodeOptions(value_format="avro", schema_registry_url=registry.url, time_mode=TimeMode.MICROS)

        def decode(rows, options) -> int:
            cached = split_records(rows, options).persist()
            try:
                typed = decode_split(cached, options)
                for df in typed.values():
                    df.write.format("noop").mode("overwrite").save()
                return len(typed)
            finally:
                cached.unpersist()

        def read_json():
            return read_kafka(spark, raw.bootstrap, topics=[raw.topic], streaming=False, split_values="json")

        def read_avro():
            return read_kafka(spark, raw.bootstrap, topics=[avro_topic], streaming=False, split_values="avro",
                              registry_options=registry_options)

        def read_floor() -> int:
            return read_kafka(spark, raw.bootstrap, topics=[avro_topic], streaming=False).count()

        def timed(label: str, fn) -> float:
            return spark_apply.timed_step(label, args.events, fn)

        assert read_floor() == args.events and decode(read_json(), json_options) == 1  # warm-up, and checks
        assert decode(read_avro(), avro_options) == 1
        base = timed("read: Avro topic + count", read_floor)
        dec_json = timed("decode JSON: split read, typed rows (noop)", lambda: decode(read_json(), json_options))
        dec_avro = timed("decode Avro: split read, typed rows (noop)", lambda: decode(read_avro(), avro_options))
        print(json.dumps({"read_eps": round(args.events / base), "json_decode_eps": round(args.events / dec_json),
                          "avro_decode_eps": round(args.events / dec_avro),
                          "avro_vs_read": round(base / dec_avro, 2), "avro_vs_json": round(dec_json / dec_avro, 2),
                          "events": args.events, "load1": round(os.getloadavg()[0], 2)}))


if __name__ == "__main__":
    main()
