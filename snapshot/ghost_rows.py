"""No ghost rows when an interrupted initial snapshot is taken again instead of resumed.

An interrupted snapshot is resumed where it stopped (snapshot/remainder.py). Where it cannot be (its binlog
position was purged, MySQL without GTIDs and no writable signal table, a remaining table that cannot be read in
chunks), the snapshot is taken again at a new position P2, as Debezium does. The earlier attempts' reads are
still in the topics, and a row they sent that was deleted before P2 would stay there for ever: the new
snapshot does not read it, and streaming starts after its delete (a ghost row).

So before the new snapshot reads any row, inside its consistent transaction (the view at P2):
1. each captured table's topic is read to its end (read_committed): the keys whose last record is not a
   delete or a tombstone are what a consumer holds now, with the row it holds;
2. those keys are looked up in the table, in batches, in the snapshot's view;
3. for each key absent at P2, a delete (op=d, `before` = the row the consumer holds, and its tombstone when
   tombstones.on.delete) is sent at the new snapshot's position, through the dispatcher like any record.
Per key a consumer then sees: the earlier read, its delete at P2, and streaming's changes after P2. The deletes
carry the new snapshot's in-progress offset without a resume key, so a kill among them takes the snapshot again
and sweeps again (the keys already deleted in the topic are no longer candidates).

Limits (logged): the value must be Connect JSON (the default converter) with schemas, the key a JSON struct of
integer and string columns; a topic written by another converter, or a key of another type, is not swept.
"""

from __future__ import annotations

import base64
import json
import logging
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Protocol, Sequence

import pymysql
from sqlglot import exp

from connector.offsets.position import SourceOffset
from schema_history.model import TableId
from snapshot.chunks import DIALECT, table_expression

__all__ = ["Candidate", "GhostSweep", "SweepEmitter", "live_keys", "connect_values"]

log = logging.getLogger(__name__)

BATCH = 500  # keys per lookup query


@dataclass(frozen=True)
class Candidate:
    """A key a consumer holds: the key's columns and the row (`after` of its last record) with that row's schema."""

    key: Mapping[str, Any]
    row: Mapping[str, Any]
    row_schema: Mapping[str, Any] | None


class SweepEmitter(Protocol):
    def topic_of(self, table_id: TableId) -> str: ...

    def table_columns(self, table_id: TableId) -> tuple[list[str], tuple[str, ...]]: ...

    def snapshot_delete(self, table_id: TableId, before: Sequence[Any], offset: SourceOffset) -> None:
        """A delete of the row a consumer holds (Connect values in column order), at the snapshot's position."""


def live_keys(records: Iterable[tuple[bytes | None, bytes | None]]) -> dict[bytes, Candidate]:
    """The keys whose last record (in topic order) is neither a delete nor a tombstone; records that are not
    Connect JSON with schemas are skipped (none is a candidate then)."""
    live: dict[bytes, Candidate] = {}
    for key, value in records:
        if key is None:
            continue
        if value is None:  # tombstone
            live.pop(key, None)
            continue
        try:
            envelope = json.loads(value)
            payload = envelope["payload"]
            key_doc = json.loads(key)
        except (ValueError, KeyError, TypeError):
            continue
        if not isinstance(payload, dict) or payload.get("op") == "d" or payload.get("after") is None:
            live.pop(key, None)
            continue
        key_payload = key_doc.get("payload") if isinstance(key_doc, dict) and "schema" in key_doc else key_doc
        if not isinstance(key_payload, dict):
            continue
        live[key] = Candidate(key_payload, payload["after"], _field_schema(envelope.get("schema"), "after"))
    return live


def _field_schema(schema: Any, name: str) -> Mapping[str, Any] | None:
    if not isinstance(schema, dict):
        return None
    return next((f for f in schema.get("fields") or () if f.get("field") == name), None)


def connect_values(columns: Sequence[str], row: Mapping[str, Any], row_schema: Mapping[str, Any] | None
                   ) -> list[Any]:
    """The row as Connect values in table column order (what the dispatcher encodes): JSON's base64 text back to
    bytes where the schema says bytes; a column the row lacks (excluded) is None."""
    fields = {f.get("field"): f for f in (row_schema or {}).get("fields") or ()}
    return [_from_json(row.get(name), fields.get(name)) for name in columns]


def _from_json(value: Any, schema: Mapping[str, Any] | None) -> Any:
    if value is None or schema is None:
        return value
    kind = schema.get("type")
    if kind == "bytes" and isinstance(value, str):
        return base64.b64decode(value)
    if kind == "struct" and isinstance(value, dict):
        fields = {f.get("field"): f for f in schema.get("fields") or ()}
        return {k: _from_json(v, fields.get(k)) for k, v in value.items()}
    if kind == "array" and isinstance(value, list):
        return [_from_json(v, schema.get("items")) for v in value]
    return value


class GhostSweep:
    """Sends the deletes (module docstring); `read_topic(topic)` returns what a consumer of that topic holds."""

    def __init__(self, read_topic: Callable[[str], dict[bytes, Candidate]]) -> None:
        self._read_topic = read_topic
        self.deleted = 0

    def sweep(self, cur: pymysql.cursors.Cursor, tables: Sequence[TableId], offset: SourceOffset,
              emitter: SweepEmitter) -> int:
        """In the snapshot's transaction, before its first row: deletes for the held keys absent from `tables`."""
        for table_id in tables:
            topic = emitter.topic_of(table_id)
            held = list(self._read_topic(topic).values())
            if not held:
                continue
            absent = self._absent(cur, table_id, held)
            columns, _key = emitter.table_columns(table_id)
            for candidate in absent:
                emitter.snapshot_delete(table_id, connect_values(columns, candidate.row, candidate.row_schema), offset)
            self.deleted += len(absent)
            log.info("Snapshot taken again: %s holds %d row(s) of earlier attempts, %d deleted since: sent their "
                     "deletes (snapshot/ghost_rows.py)", topic, len(held), len(absent))
        return self.deleted

    def _absent(self, cur: pymysql.cursors.Cursor, table_id: TableId, held: list[Candidate]) -> list[Candidate]:
        columns = list(held[0].key)
        usable = [c for c in held if list(c.key) == columns
                  and all(type(c.key[k]) in (int, str) for k in columns)]  # type(): bool is no key
        if len(usable) < len(held):
            log.warning("%s: %d held key(s) of a type the sweep cannot look up are not checked for deletes",
                        table_id.dotted(), len(held) - len(usable))
        found: set[tuple] = set()
        for start in range(0, len(usable), BATCH):
            batch = usable[start:start + BATCH]
            tuples = [exp.Tuple(expressions=[_literal(c.key[k]) for k in columns]) for c in batch]
            target = exp.Tuple(expressions=[exp.column(k, quoted=True) for k in columns])
            query = (exp.select(*(exp.column(k, quoted=True) for k in columns)).from_(table_expression(table_id))
                     .where(exp.In(this=target, expressions=tuples)))
            cur.execute(query.sql(dialect=DIALECT))
            found.update(tuple(_normal(v) for v in row) for row in cur.fetchall())
        return [c for c in usable if tuple(_normal(c.key[k]) for k in columns) not in found]


def _literal(value: int | str) -> exp.Expression:
    return exp.Literal.number(value) if isinstance(value, int) else exp.Literal.string(value)


def _normal(value: Any) -> Any:
    """Compare keys as the JSON key has them: strings as text (the server may answer bytes)."""
    return value.decode("utf-8", "replace") if isinstance(value, (bytes, bytearray)) else value
