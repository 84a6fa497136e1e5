"""Key/value/header bytes for every data record of reference runs of real Debezium 3.6.3, rebuilt from
a real server's rows (PyMySQL snapshot read, python-mysql-replication binlog read) and compared byte
for byte with the golden JsonConverter output.

Cases: the shared `basic.sql` goldens (MariaDB 10.11, MySQL 9) and this directory's `types.sql`
goldens (more types, DDL defaults, edge values; default modes, two sets of non-default modes, and
name adjustment + source-type propagation, column truncate/mask/hash mappers).
`source`, envelope timestamps and the transaction block come from the golden record; every column
value comes from the server.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Iterator

import pytest

from connector.events.records import HeaderFormat, context_headers, key_header, record_headers
from schema_history.model import TableId
from tests.integration.events.replay import Replay
from tests.integration.events.servers import Server, mysql_available, start_mariadb, start_mysql
from tests.unit.events.golden import REFERENCE, GoldenRecord, source_from, tx_from, value_settings

HERE = Path(__file__).resolve().parents[2] / "fixtures" / "golden"
WORKLOADS = HERE.parent / "workloads"
BASIC = Path(__file__).resolve().parents[2] / "fixtures" / "workloads" / "basic.sql"  # the harness's basic.sql
TYPES = WORKLOADS / "types.sql"

# case id → (golden dir, workload, flavour)
CASES = {
    "basic": (REFERENCE / "basic", BASIC, "mariadb"),
    "basic-mysql": (REFERENCE / "basic-mysql", BASIC, "mysql"),
    "types": (HERE / "types", TYPES, "mariadb"),
    "types-mysql": (HERE / "types-mysql", TYPES, "mysql"),
    "types-modes": (HERE / "types-modes", TYPES, "mariadb"),
    "types-mysql-modes": (HERE / "types-mysql-modes", TYPES, "mysql"),
    "types-names": (HERE / "types-names", TYPES, "mariadb"),
    "types-mysql-names": (HERE / "types-mysql-names", TYPES, "mysql"),
    "types-mappers": (HERE / "types-mappers", TYPES, "mariadb"),
}
# replication client ids (server_id of the binlog reader) per flavour; the vector case uses the next one
REPLICA_IDS = {"mariadb": 13392, "mysql": 13393}


@pytest.fixture(scope="session")
def servers() -> Iterator[dict[str, Server]]:
    started: dict[str, Server] = {}
    yield started
    for server in started.values():
        server.stop()


def _server(servers: dict[str, Server], flavour: str, tmp_path_factory: pytest.TempPathFactory) -> Server:
    if flavour not in servers:
        if flavour == "mysql" and (reason := mysql_available()):
            pytest.skip(reason)
        start = start_mariadb if flavour == "mariadb" else start_mysql
        servers[flavour] = start(tmp_path_factory.mktemp(f"events-{flavour}"))
    return servers[flavour]


@pytest.fixture(scope="module", params=list(CASES))
def replay(request: pytest.FixtureRequest, servers: dict[str, Server],
           tmp_path_factory: pytest.TempPathFactory) -> Replay:
    golden_dir, workload, flavour = CASES[request.param]
    if not workload.exists():
        pytest.skip(f"workload {workload} not found")
    server = _server(servers, flavour, tmp_path_factory)
    # the binlog is read with python-mysql-replication's stock decoder here (B6 applies)
    settings = replace(value_settings(golden_dir), binlog_negative_time_fraction_complemented=True)
    return Replay(golden_dir, workload, server, settings, REPLICA_IDS[flavour])


def _check_value(record: GoldenRecord, value: bytes) -> None:
    text = value.decode("utf-8")
    if text != record.value_raw:
        at = next((i for i, (a, b) in enumerate(zip(text, record.value_raw)) if a != b), min(len(text), len(record.value_raw)))
        pytest.fail(f"seq {record.seq} value differs at {at}:\n ours: …{text[max(0, at - 150):at + 100]}\n gold: …{record.value_raw[max(0, at - 150):at + 100]}")


def test_snapshot_text_path_byte_exact(replay: Replay) -> None:
    """The snapshot's fast path (raw text-protocol rows straight to bytes, connector/events/snapshot_text.py) writes
    the golden key and value of every snapshot record; only tables with column mappers take the general path."""
    golden = replay.golden_data(snapshot=True)
    checked = 0
    for record in golden:
        _, db, table = record.topic.split(".", 2)
        columns, decoders, raw_rows = replay.snapshot_raw_rows[TableId(db, table)]
        ts = replay.schema_for(TableId(db, table), columns)
        encode = ts.snapshot_text_encoder(decoders)
        if encode is None:
            assert ts._value_mappers, f"{db}.{table}: no fast path"
            continue
        payload = record.value["payload"]
        encoded = [encode(r, source_from(payload).json(), payload["ts_ns"]) for r in raw_rows]
        if ts.key_schema is not None:
            found = [value for key, value in encoded if key is not None and key.decode("utf-8") == record.key_raw]
        else:
            found = [value for _, value in encoded if value.decode("utf-8") == record.value_raw]
        assert len(found) == 1, f"seq {record.seq}: {len(found)} rows have the golden key"
        _check_value(record, found[0])
        checked += 1
    assert checked, "no snapshot record took the fast path"


def test_snapshot_records_byte_exact(replay: Replay) -> None:
    golden = replay.golden_data(snapshot=True)
    assert golden, "golden run has snapshot records"
    for record in golden:
        _, db, table = record.topic.split(".", 2)
        db_id = TableId(db, table)
        columns, raw_rows = replay.snapshot_rows[db_id]
        ts = replay.schema_for(db_id, columns)
        rows = [ts.convert_snapshot_row(r) for r in raw_rows]
        payload = record.value["payload"]
        if ts.key_schema is not None:
            wanted = record.key["payload"]
            row = next(r for r in rows if dict(zip(ts.key_schema.field_names(), ts.key_values(r))) == wanted)
            assert ts.key_bytes(row).decode("utf-8") == record.key_raw, f"seq {record.seq} key differs"
        else:
            assert record.key_raw is None
            candidates = [r for r in rows if ts.value_schema.writer(r) == _after_text(record)]
            assert candidates, f"seq {record.seq}: no row renders like the golden after image"
            row = candidates[0]
        _check_value(record, ts.value_bytes(_op(payload), None, row, source_from(payload), tx_from(payload), payload["ts_ns"]))


def _after_text(record: GoldenRecord) -> str:
    raw = record.value_raw
    start = raw.index('"payload":{"before":null,"after":') + len('"payload":{"before":null,"after":')
    end = raw.index(',"source":{', start)
    return raw[start:end]


def _op(payload: dict):
    from connector.config.modes import Operation

    return Operation(payload["op"])


@pytest.mark.parametrize("decoder", ["python-mysql-replication", "connector"])
def test_streamed_records_byte_exact(replay: Replay, decoder: str) -> None:
    golden = replay.golden_data(snapshot=False)
    by_seq = {r.seq: r for r in replay.records}
    produced = replay.streamed_events(connector_decoder=decoder == "connector")
    assert [p.event.op.value for p in produced] == [r.value["payload"]["op"] for r in golden]
    for item, record in zip(produced, golden):
        ts, event = item.schema, item.event
        key = ts.key_bytes(event.key_of)
        assert (key.decode("utf-8") if key is not None else None) == record.key_raw, f"seq {record.seq} key differs"
        payload = record.value["payload"]
        _check_value(record, ts.value_bytes(event.op, event.before, event.after, source_from(payload),
                                            tx_from(payload), payload["ts_ns"]))
        run_id = json.loads(record.headers[-1][1])["payload"]
        headers = record_headers(context_headers("dbserver1", run_id),
                                 [key_header(name, ts.key_schema, k, HeaderFormat.JSON) for name, k in event.headers])
        rendered = [(n, v.decode("utf-8")) for n, v in headers]
        assert rendered == record.headers, f"seq {record.seq} headers"
        if event.tombstone:
            tomb = by_seq[record.seq + 1]
            assert tomb.value_raw is None and tomb.key_raw == record.key_raw
            assert tomb.headers == rendered


def test_vector_snapshot_byte_exact(servers: dict[str, Server], tmp_path_factory: pytest.TempPathFactory) -> None:
    """MySQL 9 VECTOR (snapshot only: python-mysql-replication cannot read such tables' TABLE_MAP)."""
    from connector.converters.snapshot_conv import allow_binary_vectors

    allow_binary_vectors()
    golden_dir = HERE / "vector-mysql"
    server = _server(servers, "mysql", tmp_path_factory)
    replay = Replay(golden_dir, WORKLOADS / "vector.sql", server, value_settings(golden_dir), REPLICA_IDS["mysql"] + 1,
                    read_binlog=False)
    golden = replay.golden_data(snapshot=True)
    assert len(golden) == 2
    for record in golden:
        _, db, table = record.topic.split(".", 2)
        columns, raw_rows = replay.snapshot_rows[TableId(db, table)]
        ts = replay.schema_for(TableId(db, table), columns)
        row = next(ts.convert_snapshot_row(r) for r in raw_rows if r[0] == record.key["payload"]["id"])
        payload = record.value["payload"]
        assert ts.key_bytes(row).decode("utf-8") == record.key_raw
        _check_value(record, ts.value_bytes(_op(payload), None, row, source_from(payload), tx_from(payload),
                                            payload["ts_ns"]))
