"""The chunk reader (snapshot/chunks.py) against real servers: composite keys with awkward names and values,
chunk boundaries inside a run of equal first-column values, resume bounds, no primary key, overrides."""
from __future__ import annotations

import pymysql
import pytest

from schema_history.model import TableId
from snapshot.chunks import ChunkReader, TableScan

pytestmark = pytest.mark.timeout(120)

TABLE = "ord`er tä"
KEY = ("select", "we`ird")
# 3 strings per first-column value, so that chunks of 4 end in the middle of a run of equal `select`
STRINGS = ["plain", "it's", "back\\slash", "ünï €", "a\nb", "%s ?", "Z", ""]


def _connect(server, database: str) -> pymysql.connections.Connection:
    """Loads as root, then reads as the connector's user (SELECT only), as the snapshot does."""
    with server.connect(database) as root:
        _load(root)
    return server.connect(database, root=False)


def _load(conn: pymysql.connections.Connection) -> None:
    with conn.cursor() as cur:
        cur.execute("CREATE TABLE `ord``er tä` (`select` INT NOT NULL, `we``ird` VARCHAR(20) NOT NULL, "
                    "v INT, PRIMARY KEY (`select`, `we``ird`)) CHARSET utf8mb4 COLLATE utf8mb4_bin")
        rows = [(i // 3, STRINGS[i % len(STRINGS)] + str(i % 3), i) for i in range(26)]
        cur.executemany("INSERT INTO `ord``er tä` VALUES (%s, %s, %s)", rows)
        cur.execute("CREATE TABLE nopk (v INT)")
        cur.executemany("INSERT INTO nopk VALUES (%s)", [(i,) for i in range(7)])


def _ordered(conn: pymysql.connections.Connection) -> list[tuple]:
    with conn.cursor() as cur:
        cur.execute("SELECT `select`, `we``ird`, v FROM `ord``er tä` ORDER BY `select`, `we``ird`")
        return list(cur.fetchall())


def _read(conn, scan: TableScan, streaming: bool) -> tuple[list[tuple], int]:
    reader = ChunkReader(conn, scan, fetch_size=3, streaming=streaming)
    reader.open()
    try:
        rows = [reader.key_of(row) + (row[2],) if scan.keyed else row for batch in reader for row in batch]
    finally:
        reader.close()
    return rows, reader.chunks


@pytest.mark.parametrize("server_name", ["mariadb", "mysql"])
@pytest.mark.parametrize("streaming", [True, False])
def test_chunks_read_every_row_once_in_key_order(server_name, streaming, request, unique_database):
    server = request.getfixturevalue(server_name)
    database = unique_database(server)
    conn = _connect(server, database)
    try:
        ordered = _ordered(conn)
        table = TableId(database, TABLE)
        scan = TableScan(table, ("select", "we`ird", "v"), key=KEY, chunk_size=4)
        rows, chunks = _read(conn, scan, streaming)
        if streaming:  # raw values: the key decoded as PyMySQL would, the rest as sent
            rows = [(a, b, int(v)) for a, b, v in rows]
        assert rows == ordered
        assert chunks == len(ordered) // 4 + 1  # 26 rows: 6 full chunks and a short one ends it

        # resume bound: strictly after a key in the middle of a run of equal first columns
        after = ordered[10][:2]
        rest, _ = _read(conn, TableScan(table, ("select", "we`ird", "v"), key=KEY, chunk_size=5, after=after),
                        streaming)
        assert [r[:2] for r in rest] == [r[:2] for r in ordered[11:]]
        # one query for the rest of the table (the initial snapshot's read)
        rest, chunks = _read(conn, TableScan(table, ("select", "we`ird", "v"), key=KEY, after=after), streaming)
        assert len(rest) == len(ordered) - 11 and chunks == 1

        # one chunk per call, each from a new reader at the previous chunk's last key (incremental snapshot)
        seen: list[tuple] = []
        last_key, exhausted = None, False
        while not exhausted:
            reader = ChunkReader(conn, TableScan(table, key=KEY, chunk_size=8, after=last_key), 2, streaming)
            reader.open()
            seen += [reader.key_of(row) for batch in reader.chunk() for row in batch]
            reader.close()
            last_key, exhausted = reader.last_key, reader.exhausted
        assert seen == [r[:2] for r in ordered]
    finally:
        conn.close()


@pytest.mark.parametrize("server_name", ["mariadb"])
def test_no_primary_key_and_overrides(server_name, request, unique_database):
    server = request.getfixturevalue(server_name)
    database = unique_database(server)
    conn = _connect(server, database)
    try:
        ordered = _ordered(conn)
        rows, chunks = _read(conn, TableScan(TableId(database, "nopk"), chunk_size=2), streaming=False)
        assert sorted(r[0] for r in rows) == list(range(7)) and chunks == 1

        table = TableId(database, TABLE)
        safe = f"SELECT * FROM `{database}`.`ord``er tä` WHERE v % 2 = 0"
        scan = TableScan(table, key=KEY, chunk_size=3, override=safe)
        assert scan.keyed
        rows, chunks = _read(conn, scan, streaming=False)
        assert rows == [r for r in ordered if r[2] % 2 == 0] and chunks == 5

        unsafe = f"SELECT * FROM `{database}`.`ord``er tä` ORDER BY v DESC"
        scan = TableScan(table, key=KEY, chunk_size=3, override=unsafe)
        rows, chunks = _read(conn, scan, streaming=False)
        assert [r[2] for r in rows] == list(range(25, -1, -1)) and chunks == 1
    finally:
        conn.close()
