"""One table read as primary-key chunks (keyset pagination): the reader the resumable initial snapshot,
the parallel readers and the incremental snapshot share.

A table with a primary key is read by queries of the shape
    SELECT <columns> FROM `db`.`t` WHERE `k1` >= v1 AND (`k1`, `k2`) > (v1, v2) ORDER BY `k1`, `k2` LIMIT n
each starting after the last key the previous one returned. MySQL and MariaDB compare row values
lexicographically, the order of `ORDER BY k1, k2`, so chunks neither overlap nor leave gaps; primary-key
columns are NOT NULL, so no comparison with NULL drops a row. The redundant `k1 >= v1` is there for the
optimizer: MariaDB does not turn a row-value comparison into an index range, and without it every chunk
would scan the table from its start. Without a primary key there is no order to continue in: one full scan.

`chunk_size=None` reads the rest of the table in one keyset-ordered query (the initial snapshot: one
consistent-snapshot transaction, one streamed result, nothing gained by re-querying); `after` is an
exclusive lower bound (a resumed snapshot, the next incremental-snapshot window).

A `snapshot.select.statement.overrides` statement replaces the table's query. It is chunked only when that
is safe (`chunkable_override`): one SELECT of that table alone, no grouping, DISTINCT, ORDER BY, LIMIT or
aggregates, selecting every key column. Its filter is then kept and the key range ANDed to it; any other
override is run verbatim as one full scan.

Queries are sqlglot expressions rendered in the MySQL dialect: identifiers always backquoted (a backquote
in a name doubled), literals escaped by sqlglot (quotes doubled, backslashes escaped: this assumes the
server's default sql_mode, without NO_BACKSLASH_ESCAPES, as PyMySQL's own escaping does).
"""

from __future__ import annotations

import datetime
import decimal
from dataclasses import dataclass
from functools import cached_property, partial
from typing import Any, Callable, Iterator, Sequence

import pymysql
import pymysql.cursors
import sqlglot
from sqlglot import exp

from connector.events.snapshot_text import Decoder
from schema_history.model import TableId
from snapshot.raw_rows import column_decoders, decode, fetch_raw

__all__ = ["ChunkReader", "TableScan", "chunkable_override", "key_after", "key_literal", "table_expression"]

DIALECT = "mysql"


def _identifier(name: str) -> exp.Identifier:
    return exp.to_identifier(name, quoted=True)


def _column(name: str) -> exp.Column:
    return exp.Column(this=_identifier(name))


def table_expression(table_id: TableId) -> exp.Table:
    return exp.Table(this=_identifier(table_id.table), db=_identifier(table_id.database))


def key_literal(value: Any) -> exp.Expression:
    """A key value as a MySQL literal that compares as the column does; TypeError for a type it cannot."""
    if isinstance(value, bool):  # before int: a bool is an int in Python, never a key value here
        raise TypeError("bool key value")
    if isinstance(value, (int, decimal.Decimal)):
        return exp.Literal.number(str(value))
    if isinstance(value, str):
        return exp.Literal.string(value)
    if isinstance(value, (bytes, bytearray)):
        return exp.HexString(this=bytes(value).hex())
    if isinstance(value, (datetime.datetime, datetime.date)):
        return exp.Literal.string(value.isoformat(sep=" ") if isinstance(value, datetime.datetime)
                                  else value.isoformat())
    raise TypeError(f"key value of type {type(value).__name__} has no exact literal")


def key_after(key: Sequence[str], values: Sequence[Any]) -> exp.Expression:
    """`k > v`, or for a composite key `k1 >= v1 AND (k1, ..) > (v1, ..)` (module docstring)."""
    literals = [key_literal(v) for v in values]
    if len(key) == 1:
        return exp.GT(this=_column(key[0]), expression=literals[0])
    tuple_gt = exp.GT(this=exp.Tuple(expressions=[_column(k) for k in key]),
                      expression=exp.Tuple(expressions=literals))
    return exp.and_(exp.GTE(this=_column(key[0]), expression=literals[0].copy()), tuple_gt)


def chunkable_override(statement: str, table_id: TableId, key: Sequence[str]) -> exp.Select | None:
    """The override parsed, when ANDing a key range to its filter and ordering it by the key reads exactly
    its rows in key order; else None (it then runs verbatim, unchunked)."""
    try:
        parsed = sqlglot.parse_one(statement, read=DIALECT)
    except sqlglot.errors.SqlglotError:
        return None
    if not isinstance(parsed, exp.Select) or not key:
        return None
    if any(parsed.args.get(arg) for arg in ("joins", "group", "having", "distinct", "order", "limit", "offset",
                                            "qualify", "windows", "into", "locks", "with_")):
        return None
    source = parsed.args.get("from_") or parsed.args.get("from")
    tables = list(source.find_all(exp.Table)) if source is not None else []
    if len(tables) != 1 or tables[0].name != table_id.table or tables[0].db not in ("", table_id.database):
        return None
    if any(projection.find(exp.AggFunc, exp.Window) for projection in parsed.expressions):
        return None
    if not parsed.is_star:
        plain = {p.name.lower() for p in parsed.expressions if isinstance(p, exp.Column)}
        if not all(k.lower() in plain for k in key):
            return None
    return parsed


@dataclass(frozen=True)
class TableScan:
    """What one table's read selects: its columns, its key order and bounds, or an override statement."""

    table_id: TableId
    columns: tuple[str, ...] = ()  # () selects `*`
    key: tuple[str, ...] = ()  # () reads in the server's order, one full scan
    chunk_size: int | None = None  # rows per query; None: the rest of the table in one query
    after: tuple | None = None  # exclusive lower bound on `key`
    override: str | None = None  # snapshot.select.statement.overrides.<db.table>

    @cached_property
    def _override_base(self) -> exp.Select | None:
        return None if self.override is None else chunkable_override(self.override, self.table_id, self.key)

    @property
    def keyed(self) -> bool:
        """Read in key order (resumable, chunkable); false for no key and for an override that is not safe."""
        return bool(self.key) and (self.override is None or self._override_base is not None)

    def query(self, after: Sequence[Any] | None = None) -> str:
        """The statement of the chunk after key `after` (None: the first chunk, from `self.after` on)."""
        if not self.keyed:
            if self.override is not None:
                return self.override
            return self._select().sql(dialect=DIALECT)
        select = self._override_base.copy() if self._override_base is not None else self._select()
        bound = after if after is not None else self.after
        if bound is not None:
            select = select.where(key_after(self.key, bound), append=True, copy=False)
        select = select.order_by(*(_column(k) for k in self.key), copy=False)
        if self.chunk_size is not None:
            select = select.limit(self.chunk_size, copy=False)
        return select.sql(dialect=DIALECT)

    def _select(self) -> exp.Select:
        projection = [_column(c) for c in self.columns] or [exp.Star()]
        return exp.select(*projection).from_(table_expression(self.table_id))


class ChunkReader:
    """Reads one `TableScan` on one connection, `fetch_size` rows at a time, chunk after chunk.

    `streaming` reads an unbuffered result as raw values (snapshot/raw_rows.py; `decoders` then says how
    PyMySQL would decode each column), else PyMySQL's decoded tuples from a buffered result. `open()` runs
    the first query; iterating yields the batches of every chunk; `close()` ends an unfinished result.
    """

    def __init__(self, conn: pymysql.connections.Connection, scan: TableScan, fetch_size: int,
                 streaming: bool) -> None:
        self.scan = scan
        self._conn = conn
        self._fetch_size = fetch_size
        self._streaming = streaming
        self._cursor: pymysql.cursors.Cursor | None = None
        self._fetch: Callable[[int], list] = lambda size: []
        self.decoders: list[Decoder] | None = None
        self.key_index: list[int] = []  # positions of the key columns in a row ([] when not read in key order)
        self.chunks = 0  # queries run so far
        self.last_key: tuple | None = scan.after
        self.exhausted = False

    def open(self) -> list[Decoder] | None:
        self._execute(self.scan.query())
        if self.scan.keyed:
            names = [d[0].lower() for d in self._cursor.description]  # type: ignore[union-attr]
            wanted = [c.lower() for c in self.scan.key]
            if not all(c in names for c in wanted):
                raise ValueError(f"{self.scan.table_id.dotted()}: key column(s) {', '.join(self.scan.key)} "
                                 f"not in the result of {self.scan.query()}")
            self.key_index = [names.index(c) for c in wanted]
        return self.decoders

    @property
    def description(self) -> tuple:
        """The open query's result columns as the driver describes them (name, type, sizes, nullability)."""
        return tuple(self._cursor.description or ()) if self._cursor is not None else ()

    def key_of(self, row: Sequence[Any]) -> tuple:
        """The key of a row this reader returned, as Python values."""
        if self.decoders is None:
            return tuple(row[i] for i in self.key_index)
        return tuple(decode(row[i], self.decoders[i]) for i in self.key_index)

    def __iter__(self) -> Iterator[list]:
        """Every chunk's batches: the whole scan."""
        while True:
            yield from self.chunk()
            if self.exhausted:
                return
            self._execute(self.scan.query(self.last_key))

    def chunk(self) -> Iterator[list]:
        """The current query's batches only (an incremental snapshot reads one chunk per window). Afterwards
        `last_key` is the key of its last row (where the next chunk starts) and `exhausted` says whether the
        scan is complete."""
        limit = self.scan.chunk_size if self.scan.keyed else None  # no key: nothing to continue from
        in_chunk = 0
        last: Sequence[Any] | None = None
        while True:
            batch = self._fetch(self._fetch_size)
            if not batch:
                break
            in_chunk += len(batch)
            last = batch[-1]
            yield batch
        if last is not None and self.key_index:
            self.last_key = self.key_of(last)
        self.exhausted = limit is None or in_chunk < limit

    def close(self) -> None:
        if self._cursor is not None:
            # After a lost connection PyMySQL has closed its socket, and an unfinished streamed result's close()
            # would read from it: an AttributeError that hid the OperationalError being raised.
            if self._conn.open:
                self._cursor.close()
            self._cursor = None

    def _execute(self, sql: str) -> None:
        self.close()
        cursor_class = pymysql.cursors.SSCursor if self._streaming else pymysql.cursors.Cursor
        self._cursor = cur = self._conn.cursor(cursor_class)
        cur.execute(sql)
        self.chunks += 1
        if self._streaming:
            self.decoders = column_decoders(cur)
            self._fetch = partial(fetch_raw, cur)
        else:
            self._fetch = cur.fetchmany
