"""Differential test: our rows decoder vs python-mysql-replication 1.0.17 ("pmr") on real binlogs.

The workload (workload.py) covers every column type with extreme, NULL and ordinary values,
multi-row inserts, updates, deletes and MINIMAL/NOBLOB row images. The binlog is read twice:
once by a stock `BinLogStreamReader` decoding with pmr (`event.rows`), once through our
`BinlogReader` (its own packet decoding, wire_events.py, and the TABLE_MAP cache) + `RowsDecoder`; every
row image must be identical (same Python type and value; Decimals also the same exponent). Values pmr gets
wrong (B6, B8) are compared with SELECT instead. Streaming as a whole (changes, sources, offsets) is compared
between our reader and pmr's events with pmr's rows, on both servers.
"""

from __future__ import annotations

import datetime
import decimal
import json
import pickle
from typing import Any, Iterator

import pytest
from pymysqlreplication import BinLogStreamReader
from pymysqlreplication.constants import NONE_SOURCE
from pymysqlreplication.row_event import DeleteRowsEvent, TableMapEvent, UpdateRowsEvent, WriteRowsEvent

from connector.offsets.position import BinlogPosition
from connector.binlog.reader import BinlogReader, ConnectionParams
from connector.binlog.rows_decoder import RowsDecoder
from connector.binlog.table_map_cache import CachedTableMapEvent
from connector.binlog.wire_events import WireRows, WireTableMap
from tests.integration.binlog import workload

pytestmark = pytest.mark.timeout(300)

ROWS_EVENTS = (WriteRowsEvent, UpdateRowsEvent, DeleteRowsEvent)
OUR_ROWS_EVENTS = (*ROWS_EVENTS, WireRows)  # pmr's, or decoded by our reader


def _pmr_image(values: dict, none_sources: dict) -> list:
    # pmr marks an empty SET as None + 'empty set'; our decoder returns set() (see value_decoders).
    return [set() if v is None and none_sources.get(k) == NONE_SOURCE.EMPTY_SET else v for k, v in values.items()]


def pmr_rows(server: Any, start: tuple[str, int], database: str, tables: list[str],
             ignore_decode_errors: bool = False) -> list[tuple[str, list]]:
    """[(table, [(before, after)])] per rows event of `tables`, decoded by stock pmr."""
    stream = BinLogStreamReader(
        connection_settings={"host": server.host, "port": server.port, "user": server.user,
                             "password": server.password},
        server_id=4242, resume_stream=True, blocking=False, log_file=start[0], log_pos=start[1],
        only_events=[TableMapEvent, *ROWS_EVENTS], only_schemas=[database], only_tables=tables,
        ignore_decode_errors=ignore_decode_errors, enable_logging=False)
    out = []
    try:
        for event in stream:
            if not isinstance(event, ROWS_EVENTS):
                continue
            pairs = []
            for row in event.rows:
                if isinstance(event, UpdateRowsEvent):
                    pairs.append((_pmr_image(row["before_values"], row["before_none_sources"]),
                                  _pmr_image(row["after_values"], row["after_none_sources"])))
                elif isinstance(event, WriteRowsEvent):
                    pairs.append((None, _pmr_image(row["values"], row["none_sources"])))
                else:
                    pairs.append((_pmr_image(row["values"], row["none_sources"]), None))
            out.append((event.table, pairs))
    finally:
        stream.close()
    return out


def fast_events(server: Any, start: tuple[str, int], end: tuple[str, int]) -> Iterator[Any]:
    """Events through the connector's own reader, up to the binlog end captured after the workload; a TABLE_MAP the
    reader hands over with the next event (`PositionedEvent.absorbed`, a repeat) comes in its place."""
    reader = BinlogReader(ConnectionParams(server.host, server.port, server.user, server.password), 4243,
                          BinlogPosition(start[0], start[1]))
    try:
        for pe in reader.events():
            if pe.absorbed is not None:
                yield pe.absorbed[0]
            yield pe.event
            if (pe.file, pe.next_pos) >= end:
                return
    finally:
        reader.close()


def fast_rows(server: Any, start: tuple[str, int], end: tuple[str, int], database: str) -> list[tuple[str, list]]:
    decode = RowsDecoder()
    return [(ev.table, decode(ev)) for ev in fast_events(server, start, end)
            if isinstance(ev, OUR_ROWS_EVENTS) and ev.schema == database]


def same(a: Any, b: Any) -> bool:
    if type(a) is not type(b) or a != b:
        return False
    return not isinstance(a, decimal.Decimal) or a.as_tuple() == b.as_tuple()


def _text(value: Any) -> Any:
    """pmr's parsed JSON with its bytes strings decoded, to compare with `json.loads` of our text."""
    if isinstance(value, bytes):
        return value.decode("utf-8")
    if isinstance(value, dict):
        return {_text(k): _text(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_text(v) for v in value]
    return value


def same_json(pmr_value: Any, our_text: str) -> bool:
    return _text(pmr_value) == json.loads(our_text)


def assert_images_equal(expected: list | None, actual: list | None, where: str,
                        json_columns: frozenset[int] = frozenset()) -> None:
    """`json_columns`: MySQL binary JSON columns, which our decoder renders as JSON text (connector/binlog/
    json_binary.py, as Debezium emits it) where pmr returns a parsed structure with bytes strings (and None for
    the JSON `null` literal): those compare by meaning."""
    if expected is None or actual is None:
        assert expected is actual, where
        return
    assert len(expected) == len(actual), where
    bad = [(i, e, a) for i, (e, a) in enumerate(zip(expected, actual))
           if not (same_json(e, a) if i in json_columns and isinstance(a, str) else same(e, a))]
    shown = [(i, repr(e)[:80], repr(a)[:80]) for i, e, a in bad]
    assert not bad, f"{where}: column index, pmr value, our value: {shown}"


def run_workload(server: Any, database: str, with_pmr_bugs: bool = True) -> tuple[tuple[str, int], tuple[str, int]]:
    server.run_sql("FLUSH BINARY LOGS;")  # table ids and positions start fresh for this test
    start = server.binlog_position()
    server.run_sql(workload.all_types_ddl(server.flavour), database=database)
    server.run_sql(workload.all_types_dml(server.flavour), database=database)
    if with_pmr_bugs:
        server.run_sql(workload.pmr_bugs_dml(), database=database)
    return start, server.binlog_position()


@pytest.fixture(params=["mariadb", pytest.param("mysql", marks=pytest.mark.mysql)])
def server(request: pytest.FixtureRequest) -> Any:
    return request.getfixturevalue(request.param)


def test_rows_decode_exactly_like_pmr(server: Any, unique_database: Any) -> None:
    database = unique_database(server)
    start, end = run_workload(server, database)
    tables = ["all_types", "parts"]
    expected = pmr_rows(server, start, database, tables)
    actual = [e for e in fast_rows(server, start, end, database) if e[0] in tables]
    assert [t for t, _ in expected] == [t for t, _ in actual] and len(expected) >= 18
    json_columns = {table: frozenset(int(pos) - 1 for (pos,) in server.query(
        "SELECT ORDINAL_POSITION FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = %s AND TABLE_NAME = %s "
        "AND DATA_TYPE = 'json'", (database, table))) if server.flavour == "mysql" else frozenset()
        for table in tables}
    total = 0
    for n, ((table, exp_pairs), (_, act_pairs)) in enumerate(zip(expected, actual)):
        assert len(exp_pairs) == len(act_pairs), f"event {n}"
        for r, (exp, act) in enumerate(zip(exp_pairs, act_pairs)):
            assert_images_equal(exp[0], act[0], f"event {n} row {r} before", json_columns[table])
            assert_images_equal(exp[1], act[1], f"event {n} row {r} after", json_columns[table])
            total += 1
    assert total >= 40
    # The workload really exercised the awkward paths.
    images = [img for _, pairs in actual for pair in pairs for img in pair if img is not None]
    assert any(set() in img for img in images), "empty SET"
    assert any(img.count(None) > len(img) // 2 and img[0] is not None for img in images), "MINIMAL images"


def test_pmr_bug_values_match_select(server: Any, unique_database: Any) -> None:
    """B6 (negative fractional TIME) and B8 (utf16/utf32/ucs2/utf16le): our values equal what SELECT returns."""
    database = unique_database(server)
    start, end = run_workload(server, database)
    selected = {row[0]: list(row) for row in server.query("SELECT * FROM pmr_bugs ORDER BY id", database=database)}
    ours = [pair for table, pairs in fast_rows(server, start, end, database) if table == "pmr_bugs" for pair in pairs]
    inserts, updates = ours[:4], ours[4:]
    assert [after[0] for _, after in inserts] == [1, 2, 3, 4]
    for _, after in inserts[1:]:
        assert_images_equal(selected[after[0]], after, f"pmr_bugs id={after[0]}")
    assert len(updates) == 1
    assert_images_equal(selected[1], updates[0][1], "pmr_bugs id=1 after update")
    assert updates[0][0] == inserts[0][1]
    assert updates[0][0][1:] == ["héllo", "héllo ☃", "ucs2 ü", "le ü", -datetime.timedelta(microseconds=100000),
                                 -datetime.timedelta(microseconds=1000), -datetime.timedelta(microseconds=1)]
    # pmr itself is still wrong on these (if this starts failing, the library fixed B6/B8).
    pmr = [pair for _, pairs in pmr_rows(server, start, database, ["pmr_bugs"], ignore_decode_errors=True)
           for pair in pairs]
    assert pmr[0][1][6] != ours[0][1][6] and pmr[0][1][1] != ours[0][1][1]


def test_table_map_cache_reuses_identical_bodies_only(server: Any, unique_database: Any) -> None:
    """Identical TABLE_MAP bodies share one parsed Table; an ALTER (new id / new body) gets a new one."""
    database = unique_database(server)
    server.run_sql("FLUSH BINARY LOGS;")
    start = server.binlog_position()
    server.run_sql("CREATE TABLE t (id INT PRIMARY KEY, a VARCHAR(10));"
                   "INSERT INTO t VALUES (1, 'x'); INSERT INTO t VALUES (2, 'y');"
                   "ALTER TABLE t ADD COLUMN b INT DEFAULT 7;"
                   "INSERT INTO t VALUES (3, 'z', 8); UPDATE t SET a = 'w';"
                   "FLUSH BINARY LOGS; INSERT INTO t VALUES (4, 'v', 9);", database=database)
    end = server.binlog_position()
    decode = RowsDecoder()
    maps, rows = [], []
    for ev in fast_events(server, start, end):
        if isinstance(ev, (TableMapEvent, WireTableMap)) and ev.schema == database:
            # a body seen before is read by our reader, a new one parsed by pmr
            assert isinstance(ev, WireTableMap if maps and ev.columns == maps[-1][1] else CachedTableMapEvent)
            maps.append((ev.table_obj, ev.columns))
        elif isinstance(ev, OUR_ROWS_EVENTS) and ev.schema == database:
            rows.extend(decode(ev))
    assert len(maps) == 5
    assert maps[0][0] is maps[1][0]  # same body: parsed once
    assert maps[2][0] is not maps[1][0]  # after ALTER
    assert maps[2][0] is maps[3][0] is maps[4][0]  # also across a rotation
    assert [c.name for c in maps[3][1]] == ["id", "a", "b"]
    # the rows decoder compiles one plan per Table object and keeps it itself: the library's Table holds nothing
    # of ours, so it pickles as it is (encode workers get it so)
    assert decode.plan(maps[0][0]) is decode.plan(maps[1][0]) is not decode.plan(maps[2][0])
    assert pickle.loads(pickle.dumps(maps[2][0])) == maps[2][0]
    assert rows == [(None, [1, "x"]), (None, [2, "y"]), (None, [3, "z", 8]),
                    ([1, "x", 7], [1, "w", 7]), ([2, "y", 7], [2, "w", 7]), ([3, "z", 8], [3, "w", 8]),
                    (None, [4, "v", 9])]


class RecordingEmitter:
    """A `ChangeEmitter` that keeps what streaming hands it (row changes with their source and offset)."""

    def __init__(self) -> None:
        self.changes: list[tuple] = []

    def transaction_begin(self, tx_id: str, ts_ms: int, offset: Any) -> None:
        self.changes.append(("begin", tx_id, offset))

    def transaction_end(self, tx: Any, ts_ms: int, offset: Any) -> None:
        self.changes.append(("end", tx, offset))

    def wants_table(self, table_id: Any) -> bool:
        return True

    def row_change(self, change: Any, source: Any, positions: Any) -> None:
        self.changes.append(("row", change, source, positions.next_event(change.table_id.dotted())))

    def ddl(self, statement: str, database: str, source: Any, offset: Any) -> None:
        self.changes.append(("ddl", statement, source, offset))

    def position_advanced(self, offset: Any, next_pos: Any) -> None:
        self.changes.append(("pos", offset, next_pos))


def _pmr_pairs(event: Any) -> list:
    """What streaming consumed before the fast decoder: pmr's row dicts as positional lists."""
    if isinstance(event, UpdateRowsEvent):
        return [(_pmr_image(r["before_values"], r["before_none_sources"]),
                 _pmr_image(r["after_values"], r["after_none_sources"])) for r in event.rows]
    if isinstance(event, WriteRowsEvent):
        return [(None, _pmr_image(r["values"], r["none_sources"])) for r in event.rows]
    return [(_pmr_image(r["values"], r["none_sources"]), None) for r in event.rows]


def test_streaming_emits_the_same_changes_with_either_reader(server: Any, unique_database: Any) -> None:
    """StreamingHandler over our reader (its own packet decoding, wire_events.py) and our rows decoder = over
    pmr's event objects (`wire=False`) and pmr's rows (MariaDB): same changes, sources, offsets, GTIDs, transactions."""
    from connector.streaming.handler import StreamingHandler, StreamingState

    database = unique_database(server)
    start, end = run_workload(server, database, with_pmr_bugs=False)  # pmr raises on utf32 (B8)
    server.run_sql("CREATE TABLE small (id INT PRIMARY KEY, v VARCHAR(8));" + "".join(
        f"BEGIN; INSERT INTO small VALUES ({i}, 'a'); UPDATE small SET v = 'b' WHERE id = {i}; COMMIT;"
        for i in range(5)) + "DELETE FROM small;", database=database)  # small transactions, one TABLE_MAP each
    end = server.binlog_position()
    mysql = server.flavour == "mysql"
    runs, kinds = [], []
    # pmr renders MySQL's binary JSON as structures (our decoder: Debezium's text; see assert_images_equal): there
    # both runs decode rows with ours, test_rows_decode_exactly_like_pmr compares the values
    for wire, rows_of in ((True, None), (False, None if mysql else _pmr_pairs)):
        emitter = RecordingEmitter()
        handler = StreamingHandler(StreamingState(start[0], start[1]), emitter, use_gtids=mysql, is_mariadb=not mysql,
                                   provide_transaction_metadata=True, rows_of=rows_of)
        reader = BinlogReader(ConnectionParams(server.host, server.port, server.user, server.password), 4244,
                              BinlogPosition(start[0], start[1]), wire=wire)
        seen = set()
        try:
            for pe in reader.events():
                seen.add(type(pe.event).__name__)
                if pe.absorbed is not None:  # a repeated TABLE_MAP, handed over with the next event
                    seen.add(type(pe.absorbed[0]).__name__)
                handler.handle(pe)
                if (pe.file, pe.next_pos) >= end:
                    break
        finally:
            reader.close()
        runs.append(emitter.changes)
        kinds.append(seen)
    ours, pmr = runs
    rows = [c for c in ours if c[0] == "row"]
    assert len(rows) >= 40 and {c[1].op.value for c in rows} == {"c", "u", "d"}
    # our reader decoded the transactions' events itself; pmr's run saw none of them
    assert {"WireRows", "WireTableMap", "WireXid", "WireMysqlGtid" if mysql else "WireMariadbGtid"} <= kinds[0]
    assert not any(name.startswith("Wire") for name in kinds[1])
    assert ours == pmr


def test_an_event_of_16_mb_and_more_spans_packets_and_the_stream_reads_on(server: Any, unique_database: Any) -> None:
    """A rows event of 16 MB or more comes in several packets (0xFFFFFF bytes each but the last): the reader's own
    framing (packet_feed.py) joins them, and keeps the sequence numbers pmr's reads check after it (a DDL)."""
    database = unique_database(server)
    server.run_sql("SET GLOBAL max_allowed_packet = 67108864;")  # for REPEAT's result; new sessions see it
    server.run_sql("CREATE TABLE big (id INT PRIMARY KEY, b LONGBLOB);", database=database)
    start = server.binlog_position()
    server.run_sql("INSERT INTO big VALUES (1, REPEAT('x', 17000000)); CREATE TABLE after_big (id INT);"
                   "INSERT INTO big VALUES (2, REPEAT('y', 16777215 - 64)), (3, 'z');", database=database)
    end = server.binlog_position()
    rows = [(row[1][0], len(row[1][1]), row[1][1][:1]) for _, pairs in fast_rows(server, start, end, database)
            for row in pairs]
    assert rows == [(1, 17000000, b"x"), (2, 16777215 - 64, b"y"), (3, 1, b"z")]
