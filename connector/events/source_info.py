"""The `source` block of every data and schema-change record (`io.debezium.connector.mysql.Source` v1).

Field order, optionality and the snapshot Enum (with default "false", which JsonConverter prints for a
null snapshot marker while streaming) follow debezium-contract.md §d4. All three source timestamps
come from one instant, kept in nanoseconds (`ts_ns`): binlog header seconds, the GTID event's
`original_commit_timestamp` µs, or a wall clock during the snapshot.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import Enum

from functools import lru_cache

from connector.serde.connect_schema import ConnectSchema, Type, struct
from connector.java.text import jackson_string

__all__ = ["SnapshotMarker", "SourceInfo", "SOURCE_SCHEMA", "DEFAULT_VERSION", "streaming_json_around_pos"]

DEFAULT_VERSION = "3.6.3.Final"


class SnapshotMarker(str, Enum):
    """`source.snapshot` values (`SnapshotRecord`); None while streaming."""

    TRUE = "true"
    FIRST = "first"
    FIRST_IN_DATA_COLLECTION = "first_in_data_collection"
    LAST_IN_DATA_COLLECTION = "last_in_data_collection"
    LAST = "last"
    FALSE = "false"
    INCREMENTAL = "incremental"


_S = ConnectSchema
SNAPSHOT_ENUM = ConnectSchema(
    Type.STRING,
    optional=True,
    name="io.debezium.data.Enum",
    version=1,
    parameters=(("allowed", "true,first,first_in_data_collection,last_in_data_collection,last,false,incremental"),),
    default="false",
)

SOURCE_SCHEMA = struct(
    "io.debezium.connector.mysql.Source",
    [
        ("version", _S(Type.STRING)),
        ("connector", _S(Type.STRING)),
        ("name", _S(Type.STRING)),
        ("ts_ms", _S(Type.INT64)),
        ("snapshot", SNAPSHOT_ENUM),
        ("db", _S(Type.STRING)),
        ("sequence", _S(Type.STRING, optional=True)),
        ("ts_us", _S(Type.INT64, optional=True)),
        ("ts_ns", _S(Type.INT64, optional=True)),
        ("table", _S(Type.STRING, optional=True)),
        ("server_id", _S(Type.INT64)),
        ("gtid", _S(Type.STRING, optional=True)),
        ("file", _S(Type.STRING)),
        ("pos", _S(Type.INT64)),
        ("row", _S(Type.INT32)),
        ("thread", _S(Type.INT64, optional=True)),
        ("query", _S(Type.STRING, optional=True)),
    ],
    version=1,
)


# Not frozen, like the other per-row objects: one is built per row change (`at_row`), and a frozen dataclass sets
# each field through object.__setattr__ (three times slower). Never changed once built, but for its cached text.
@dataclass(slots=True, unsafe_hash=True)
class SourceInfo:
    """One record's source block. Build a template once (`name`, `version`) and `replace()` per event."""

    name: str
    ts_ns: int = 0
    snapshot: SnapshotMarker | None = None
    db: str = ""
    table: str | None = None
    server_id: int = 0
    gtid: str | None = None
    file: str = ""
    pos: int = 0
    row: int = 0
    thread: int | None = None
    query: str | None = None
    version: str = DEFAULT_VERSION
    connector: str = "mysql"
    sequence: str | None = None
    # This block's JSON split around the row number (`json_around_row`), once asked for; `at_row` copies share it.
    around_row: tuple[str, str] | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def ts_ms(self) -> int:
        return self.ts_ns // 1_000_000

    @property
    def ts_us(self) -> int:
        return self.ts_ns // 1_000

    def values(self) -> tuple:
        """Payload values in `SOURCE_SCHEMA` field order."""
        ts_ns = self.ts_ns
        return (
            self.version,
            self.connector,
            self.name,
            ts_ns // 1_000_000,
            None if self.snapshot is None else self.snapshot.value,
            self.db,
            self.sequence,
            ts_ns // 1_000,
            ts_ns,
            self.table,
            self.server_id,
            self.gtid,
            self.file,
            self.pos,
            self.row,
            self.thread,
            self.query,
        )

    def json(self) -> str:
        """The payload JSON, equal to `SOURCE_SCHEMA.writer(self.values())`, built directly because it is
        written for every record (the leading constant fields come from a per-connector cache)."""
        parts = self.around_row
        if parts is not None:  # only the row number differs between the blocks sharing it
            return f"{parts[0]}{self.row}{parts[1]}"
        return self._json()

    def at_row(self, row: int) -> SourceInfo:
        """This source block for another row of the same rows event (one per row change), which renders its JSON
        from this block's, split around the row number."""
        parts = self.around_row
        if parts is None:
            parts = self.around_row = self.json_around_row()
        copy = SourceInfo(self.name, self.ts_ns, self.snapshot, self.db, self.table, self.server_id, self.gtid,
                          self.file, self.pos, row, self.thread, self.query, self.version, self.connector,
                          self.sequence)
        copy.around_row = parts
        return copy

    def json_around_row(self) -> tuple[str, str]:
        """The payload JSON split around the row number: `head + str(row) + tail` is this block's JSON at `row`."""
        head, _, tail = self._json().partition(f',"row":{self.row},"thread":')
        return head + ',"row":', ',"thread":' + tail

    def _json(self) -> str:
        ts_ns = self.ts_ns
        snapshot = self.snapshot
        return "".join((
            _constant_prefix(self.version, self.connector, self.name),
            str(ts_ns // 1_000_000),
            ',"snapshot":', '"false"' if snapshot is None else jackson_string(snapshot.value),
            ',"db":', jackson_string(self.db),
            ',"sequence":', "null" if self.sequence is None else jackson_string(self.sequence),
            ',"ts_us":', str(ts_ns // 1_000),
            ',"ts_ns":', str(ts_ns),
            ',"table":', "null" if self.table is None else jackson_string(self.table),
            ',"server_id":', str(self.server_id),
            ',"gtid":', "null" if self.gtid is None else jackson_string(self.gtid),
            ',"file":', jackson_string(self.file),
            ',"pos":', str(self.pos),
            ',"row":', str(self.row),
            ',"thread":', "null" if self.thread is None else str(self.thread),
            ',"query":', "null" if self.query is None else jackson_string(self.query),
            "}",
        ))

    def with_(self, **changes: object) -> "SourceInfo":
        return replace(self, **changes)  # type: ignore[arg-type]


@lru_cache(maxsize=64)
def _constant_prefix(version: str, connector: str, name: str) -> str:
    return (f'{{"version":{jackson_string(version)},"connector":{jackson_string(connector)},'
            f'"name":{jackson_string(name)},"ts_ms":')


@lru_cache(maxsize=4096)
def _name_json(name: str) -> str:
    """A database, table or binlog file name as a JSON string: few distinct names, one of each per rows event."""
    return jackson_string(name)


def streaming_json_around_pos(version: str, connector: str, name: str, ts_ns: int, db: str, table: str | None,
                              server_id: int, gtid: str | None, file: str, thread: int | None,
                              query: str | None) -> tuple[str, str]:
    """`SourceInfo(...).json_around_row()` of a streamed rows event (no snapshot marker, no sequence) without
    building the block, split around its binlog position instead: what comes before `pos`'s value and what comes
    after the row number. The fused row path (connector/dispatch/fused_rows.py) needs only the text, once per
    event, and the events of a transaction differ only in their position."""
    head = (f'{_constant_prefix(version, connector, name)}{ts_ns // 1_000_000},"snapshot":"false",'
            f'"db":{_name_json(db)},"sequence":null,"ts_us":{ts_ns // 1_000},"ts_ns":{ts_ns},'
            f'"table":{"null" if table is None else _name_json(table)},"server_id":{server_id},'
            f'"gtid":{"null" if gtid is None else jackson_string(gtid)},"file":{_name_json(file)},"pos":')
    query_json = "null" if query is None else jackson_string(query)
    tail = f',"thread":{"null" if thread is None else thread},"query":{query_json}}}'
    return head, tail
