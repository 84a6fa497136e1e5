"""`SourceInfo.json()` (the hand-built fast path) equals the generic JsonConverter writer for every shape."""
from __future__ import annotations

import itertools

from connector.events.source_info import SOURCE_SCHEMA, SnapshotMarker, SourceInfo


def test_fast_source_json_equals_generic_writer():
    variants = itertools.product(
        [None, SnapshotMarker.FIRST, SnapshotMarker.TRUE, SnapshotMarker.LAST],
        [None, "customers", "t\u00e9\"x"],
        [None, "3f1c:17"],
        [None, 0, 25],
        [None, "INSERT INTO t VALUES ('\\n')"],
        [None, "seq"],
    )
    for snapshot, table, gtid, thread, query, sequence in variants:
        info = SourceInfo(name="dbserver1", ts_ns=1_795_213_758_123_456_789, snapshot=snapshot, db="inventory",
                          table=table, server_id=1, gtid=gtid, file="mariadb-bin.000001", pos=6340, row=2,
                          thread=thread, query=query, sequence=sequence)
        assert info.json() == SOURCE_SCHEMA.writer(info.values())


def test_per_row_copies_render_as_freshly_built_blocks():
    """`SourceInfo.at_row` (one block per rows event, copied per row) renders what a block built for that row
    does, also for names that contain the text around the row number."""
    for table, query in [("customers", None), (',"row":1,"thread":', ',"row":1,"thread":null')]:
        first = SourceInfo(name="dbserver1", ts_ns=1_795_213_758_000_000_000, db="inventory", table=table,
                           server_id=1, file="mariadb-bin.000001", pos=6340, row=1, thread=7, query=query)
        for row in (0, 1, 2, 999):
            fresh = SourceInfo(name="dbserver1", ts_ns=1_795_213_758_000_000_000, db="inventory", table=table,
                               server_id=1, file="mariadb-bin.000001", pos=6340, row=row, thread=7, query=query)
            copy = first.at_row(row)
            assert copy == fresh
            assert copy.json() == fresh.json() == SOURCE_SCHEMA.writer(fresh.values())
            assert copy.values() == fresh.values()
