"""End to end with Avro: MariaDB → two binlog-cdc connectors on the same table, one with
JsonConverter, one with AvroConverter + Schema Registry → Tansu → the mirror CLI
(``--value-format avro --schema-registry-url``) → Delta. The Avro lake must equal the JSON
lake (snapshot rows, then inserts/updates/deletes streamed), over a table with one column per
Debezium semantic type of the type goldens (Decimal, VariableScale-free DECIMAL(65,30) as text,
Date, MicroTime, MicroTimestamp, ZonedTimestamp, Year, Enum, EnumSet, Bits, Json, Geometry)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

pytest.importorskip("pyspark")
pytest.importorskip("deltalake")

from deltalake import DeltaTable  # noqa: E402

from spark_sink.mirror import main as mirror  # noqa: E402
from tests.support.connector_process import ConnectorProcess, default_connector_cmd  # noqa: E402
from tests.support.schema_registry import SchemaRegistryServer  # noqa: E402
from tests.support.waiting import wait_until  # noqa: E402

pytestmark = pytest.mark.spark

SETUP = """
CREATE TABLE typed (
  id INT NOT NULL PRIMARY KEY,
  c_tiny TINYINT, c_tiny_u TINYINT UNSIGNED, c_small SMALLINT, c_big_u BIGINT UNSIGNED, c_bool TINYINT(1),
  c_float FLOAT, c_double DOUBLE, c_dec DECIMAL(10,3), c_dec65 DECIMAL(65,30),
  c_date DATE, c_time TIME(2), c_datetime DATETIME(6), c_ts TIMESTAMP(6) NULL, c_year YEAR,
  c_char CHAR(3), c_varchar VARCHAR(20), c_text TEXT, c_binary BINARY(3), c_blob BLOB,
  c_enum ENUM('a','it''s','c'), c_set SET('x','y','z'), c_bit1 BIT(1), c_bit5 BIT(5), c_bit64 BIT(64),
  c_json JSON, c_geom GEOMETRY, c_point POINT
);
INSERT INTO typed VALUES
 (1, -128, 255, -32768, 18446744073709551615, 1, 1.1, 2.5e10, -1234567.891,
  12345678901234567890.123456789012345678901234567890, '1000-01-01', '-838:59:59.00',
  '9999-12-31 23:59:59.999999', '2038-01-19 03:14:07.123456', 1901, 'ab', 'it''s', 'text', 'ab', x'00ff10',
  'it''s', 'x,z', b'1', b'10101', b'1000000000000000000000000000000000000000000000000000000000000001',
  '{"a": [1, 2.5, "x"]}', ST_GeomFromText('LINESTRING(0 0, 1 1)'), POINT(1.5, -2)),
 (2, 0, 0, 0, 0, 0, -0.5, 0, 0, 0, '2024-02-29', '00:00:00', '1970-01-01 00:00:00', NULL, 2155,
  '', '', '', x'000000', '', 'a', '', b'0', b'0', b'0', 'null', NULL, NULL),
 (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
  NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
"""
STREAMED = """
INSERT INTO typed (id, c_dec, c_time, c_datetime, c_ts, c_set, c_bit5, c_json, c_point)
  VALUES (4, 0.001, '12:34:56.78', '2001-02-03 04:05:06.5', '2001-02-03 04:05:06.000001', 'y', b'11111',
          '[]', POINT(0, 0));
UPDATE typed SET c_dec = 99.5, c_enum = 'c', c_set = 'x,y,z', c_float = 3.25 WHERE id = 2;
UPDATE typed SET id = 30 WHERE id = 3;
DELETE FROM typed WHERE id = 1;
"""


def _connector(server, bootstrap: str, database: str, prefix: str, workdir: Path,
               registry_url: str | None) -> ConnectorProcess:
    props = {
        "debezium.sink.type": "kafka",
        "debezium.sink.kafka.producer.bootstrap.servers": bootstrap,
        "debezium.source.connector.class": "io.debezium.connector.mysql.MySqlConnector",
        **{f"debezium.source.{k}": v for k, v in server.connector_properties().items()},
        "debezium.source.database.server.id": str(random.randint(10_000, 60_000)),
        "debezium.source.topic.prefix": prefix,
        "debezium.source.database.include.list": database,
        "debezium.source.offset.storage.file.filename": str(workdir / f"{prefix}-offsets.dat"),
        "debezium.source.schema.history.internal": "io.debezium.storage.file.history.FileSchemaHistory",
        "debezium.source.schema.history.internal.file.filename": str(workdir / f"{prefix}-history.jsonl"),
    }
    if registry_url:
        for side in ("key", "value"):
            props[f"debezium.format.{side}"] = "avro"
            props[f"debezium.format.{side}.schema.registry.url"] = registry_url
    config = workdir / f"{prefix}.properties"
    config.write_text("".join(f"{k}={v}\n" for k, v in props.items()))
    return ConnectorProcess(list(default_connector_cmd()), config, workdir / f"{prefix}-status.json",
                            workdir / f"{prefix}.log").start()


def _lake(path: Path) -> dict[int, dict]:
    if not DeltaTable.is_deltatable(str(path)):
        return {}
    rows = DeltaTable(str(path)).to_pyarrow_table().to_pylist()
    return {r["id"]: {k: v for k, v in r.items() if not k.startswith("__")} for r in rows}


def test_avro_lake_equals_json_lake(request, spark, prefix, workdir, unique_database) -> None:
    server, broker = request.getfixturevalue("mariadb"), request.getfixturevalue("broker")
    database = unique_database(server)
    server.run_sql(SETUP, database=database)
    with SchemaRegistryServer() as registry:
        procs = [_connector(server, broker.bootstrap_servers, database, f"{prefix}j", workdir, None),
                 _connector(server, broker.bootstrap_servers, database, f"{prefix}a", workdir, registry.url)]
        try:
            def caught_up() -> None:
                for proc in procs:
                    proc.wait_caught_up(server.binlog_position(), quiet_ms=500, timeout=120)

            def lakes(ids: set[int]) -> tuple[dict, dict] | None:
                for proc in procs:
                    proc.assert_running()  # fails at once with that connector's log
                got = []
                for side, extra in (("j", []), ("a", ["--value-format", "avro", "--schema-registry-url", registry.url])):
                    argv = ["--bootstrap-servers", broker.bootstrap_servers,
                            "--topics-pattern", rf"{prefix}{side}\.{database}\..*", "--target", str(workdir / side),
                            "--checkpoint", str(workdir / f"ckpt-{side}"), "--drain", *extra]
                    assert mirror(argv, spark) == 0
                    got.append(_lake(workdir / side / database / "typed"))
                return (got[0], got[1]) if set(got[0]) == set(got[1]) == ids else None

            # Two mirror runs per poll are costly (streaming queries): first both connectors caught up (status
            # file: everything up to the server's position sent and acked), so the first poll normally sees it all.
            caught_up()
            by_json, by_avro = wait_until(lambda: lakes({1, 2, 3}), 120, "the snapshot in both lakes", interval=1)
            assert by_avro == by_json
            assert all(by_json[1][c] is not None for c in by_json[1]), by_json[1]  # every type decoded
            server.run_sql(STREAMED, database=database)
            caught_up()
            by_json, by_avro = wait_until(lambda: lakes({2, 4, 30}), 120, "the streamed changes in both lakes",
                                          interval=1)
            assert by_avro == by_json
            assert by_json[2]["c_set"] == ["x", "y", "z"] and by_json[4]["c_bit5"] == b"\x1f"
            assert registry.subjects()  # the Avro side really went through the registry
        finally:
            for proc in procs:
                proc.stop(20)
