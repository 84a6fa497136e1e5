"""The reader holds back a TABLE_MAP that repeats the last one of its table id (a transaction per row change repeats
it) and hands it over with the next event (`PositionedEvent.absorbed`), on real servers: the first TABLE_MAP of a
table is yielded, its repeats ride on the rows events that follow them, and after a DDL (an event of pmr's path)
the next TABLE_MAP is yielded again; every event is accounted for, in binlog order."""
from __future__ import annotations

import pytest

from connector.binlog.connection import ConnectionParams
from connector.binlog.reader import BinlogReader
from connector.binlog.wire_events import COMMIT_EVENTS, WireRows, WireTableMap
from connector.offsets.position import BinlogPosition

pytestmark = pytest.mark.timeout(120)


@pytest.mark.parametrize("server_name", ["mariadb", "mysql"])
def test_repeated_table_maps_ride_on_the_next_event(server_name, request, unique_database) -> None:
    server = request.getfixturevalue(server_name)
    database = unique_database(server)
    server.run_sql("CREATE TABLE items (id INT PRIMARY KEY, name VARCHAR(10))", database=database)
    start = server.binlog_position()
    server.run_sql("INSERT INTO items VALUES (1, 'a'); INSERT INTO items VALUES (2, 'b'); "
                   "UPDATE items SET name = 'c' WHERE id = 1; ALTER TABLE items ADD COLUMN n INT; "
                   "INSERT INTO items VALUES (3, 'd', 1); DELETE FROM items WHERE id = 2", database=database)
    end = server.binlog_position()
    reader = BinlogReader(ConnectionParams(server.host, server.port, server.user, server.password), 4247,
                          BinlogPosition(*start), heartbeat_interval_s=60)
    seen: list[tuple[str, bool]] = []  # (event, whether a TABLE_MAP rode on it)
    try:
        for pe in reader.events():
            if pe.absorbed is not None:
                table_map, table_map_start, table_map_next = pe.absorbed[:3]
                assert type(table_map) is WireTableMap and table_map.table == "items"  # ours, never pmr's
                # the held-back TABLE_MAP sits right before the event it rides on
                assert table_map_start < table_map_next == pe.start
            kind = ("table_map" if "TableMap" in type(pe.event).__name__ else "rows" if type(pe.event) is WireRows
                    else "commit" if type(pe.event) in COMMIT_EVENTS else "")
            if kind:
                seen.append((kind, pe.absorbed is not None))
            if (pe.file, pe.next_pos) >= end and type(pe.event) in COMMIT_EVENTS:
                break
    finally:
        reader.close()
    assert seen == [
        ("table_map", False), ("rows", False), ("commit", False),  # the table's first TABLE_MAP
        ("rows", True), ("commit", False),  # the second insert's repeats it
        ("rows", True), ("commit", False),  # the update's too
        ("table_map", False), ("rows", False), ("commit", False),  # after the ALTER: the new version's
        ("rows", True), ("commit", False),
    ]
