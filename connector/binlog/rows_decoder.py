"""Rows events → `(before, after)` value lists, decoded straight from the raw event bytes.

python-mysql-replication ("pmr") decodes each value through 6–8 method calls and builds a dict per
row image; that is ~94% of its time on bulk inserts (python-mysql-replication.md §3). Here the work
is split by how often it happens (style.md §2.3):
- once per table version: `RowPlan` (one `value_decoders` function per column, plus those compiled
  by `image_compiler` into one straight-line reader for full row images), kept by the decoder per table
  id together with the pmr `Table` it was compiled from. pmr builds a new `Table` for every TABLE_MAP it
  parses, and `table_map_cache` reuses the old one only when the TABLE_MAP bytes (which include the table
  id) are identical, so a plan is used only for the very `Table` object it was compiled for and can never
  outlive the definition (ALTER → new id or new bytes → new `Table` → new plan);
- once per rows event: the post-header (v1 and v2, extra data skipped) and the present-columns bitmaps;
- once per value: a few inlined operations (numbers, short text) or one call to a column decoder.

The result is `list[(before, after)]`: WRITE → (None, after), UPDATE → (before, after),
DELETE → (before, None), a partial JSON update (PARTIAL_UPDATE_ROWS_EVENT) → (before, after) with the JSON
documents' changes applied (json_partial.py); each image is a list in table column order, None for NULL and for columns
absent from the image (binlog_row_image=MINIMAL/NOBLOB), as pmr does. Values equal pmr's except
where `value_decoders` says otherwise (B6, B8, empty SET).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from pymysqlreplication.constants import BINLOG, FIELD_TYPE
from pymysqlreplication.row_event import (DeleteRowsEvent, PartialUpdateRowsEvent, RowsEvent, UpdateRowsEvent,
                                          WriteRowsEvent)

from connector.binlog import json_partial
from connector.binlog.image_compiler import FullImage, compile_full_image
from connector.binlog.value_decoders import (PackedDatetime, PackedDecimal, ValueDecoder, column_decoder,
                                             timestamp_size)
from connector.binlog.wire_events import WireRows
from connector.errors import BinlogDecodeError, Where

__all__ = ["PartialUpdateRowsEvent", "RawRows", "RowsDecoder", "RowImage", "RowPair", "RowPlan", "SHARE_MIN",
           "decode_images", "release_raw_bytes", "share_unchanged"]

RowImage = list
RowPair = tuple["RowImage | None", "RowImage | None"]

_HEADER = 20  # pmr's packet data: 1 OK byte + the 19-byte event header, then the post-header
# PARTIAL_UPDATE_ROWS_EVENT (binlog_row_value_options=PARTIAL_JSON) has the v2 layout
_V2_EVENTS = frozenset({BINLOG.WRITE_ROWS_EVENT_V2, BINLOG.UPDATE_ROWS_EVENT_V2, BINLOG.DELETE_ROWS_EVENT_V2,
                        BINLOG.PARTIAL_UPDATE_ROWS_EVENT})
# An UPDATE's after image takes the before image's object for an unchanged value of at least this size.
SHARE_MIN = 64 * 1024
_SHAREABLE_TYPES = frozenset({FIELD_TYPE.BLOB, FIELD_TYPE.JSON, FIELD_TYPE.GEOMETRY})


@dataclass(frozen=True)
class RowPlan:
    """Per table version: one decoder per column (column order) and the compiled full-image reader."""

    decoders: tuple[ValueDecoder, ...]
    full: FullImage | None = None
    # columns whose values may be BLOB-sized (BLOB/TEXT, JSON, GEOMETRY): see `share_unchanged`
    big: tuple[int, ...] = ()
    # JSON columns as (index, length-prefix size): the partial-update bits of PARTIAL_UPDATE_ROWS_EVENT
    json: tuple[tuple[int, int], ...] = ()
    # DECIMAL and DATETIME columns as (index, layout): the fused row path writes their values straight from the bytes
    decimals: tuple[tuple[int, PackedDecimal], ...] = ()
    datetimes: tuple[tuple[int, PackedDatetime], ...] = ()
    # TIMESTAMP columns as (index, bytes in the image): the fused row path keeps their last texts by those bytes
    timestamps: tuple[tuple[int, int], ...] = ()

    @classmethod
    def for_table(cls, table: Any, errors: str = "strict") -> "RowPlan":
        decoders = tuple(column_decoder(c, errors) for c in table.columns)
        big = tuple(i for i, c in enumerate(table.columns) if c.type in _SHAREABLE_TYPES)
        json = tuple((i, c.length_size) for i, c in enumerate(table.columns) if c.type == FIELD_TYPE.JSON)
        decimals = tuple((i, PackedDecimal.of(c.precision, c.decimals)) for i, c in enumerate(table.columns)
                         if c.type == FIELD_TYPE.NEWDECIMAL)
        datetimes = tuple((i, PackedDatetime(c.fsp)) for i, c in enumerate(table.columns)
                          if c.type == FIELD_TYPE.DATETIME2)
        timestamps = tuple((i, timestamp_size(c)) for i, c in enumerate(table.columns)
                           if c.type in (FIELD_TYPE.TIMESTAMP2, FIELD_TYPE.TIMESTAMP))
        return cls(decoders, compile_full_image(decoders, f"{table.schema}.{table.table}"), big, json, decimals,
                   datetimes, timestamps)

    def partial_after(self, data: bytes, pos: int, present: int, before: RowImage) -> tuple[RowImage, int]:
        """A PARTIAL_UPDATE_ROWS_EVENT after image: value options, partial bits, then the image, in which a JSON
        column whose bit is set holds a diff vector, applied to its `before` document (json_partial.py)."""
        options, pos = _length_encoded(data, pos)
        partial: set[int] = set()
        if options & json_partial.PARTIAL_JSON_UPDATES:
            nbytes = (len(self.json) + 7) >> 3
            bits = int.from_bytes(data[pos:pos + nbytes], "little")
            pos += nbytes
            partial = {i for n, (i, _) in enumerate(self.json) if bits >> n & 1}
        if not partial:
            return self.reader(present)(data, pos)
        sizes = dict(self.json)
        nbytes = (present.bit_count() + 7) >> 3
        nulls = int.from_bytes(data[pos:pos + nbytes], "little")
        pos += nbytes
        values: list[Any] = [None] * len(self.decoders)
        null_bit = 1
        for i, decode in enumerate(self.decoders):
            if not present >> i & 1:
                continue
            if nulls & null_bit:
                pass
            elif i in partial:
                size = sizes[i]
                length = int.from_bytes(data[pos:pos + size], "little")
                start = pos + size
                pos = start + length
                values[i] = json_partial.apply_json_diffs(before[i], json_partial.read_json_diffs(data[start:pos]))
            else:
                values[i], pos = decode(data, pos)
            null_bit <<= 1
        return values, pos

    def full_row(self, data: bytes, pos: int, kind: str) -> tuple[RowPair, int]:
        """One row change of full images at `pos` in an event of `kind` (w/u/d) and the position after it (the
        handler's fused row path decodes a row it cannot render from bytes this way; `full` must be compiled)."""
        full = self.full
        assert full is not None
        if kind == "w":
            after, pos = full(data, pos)
            return (None, after), pos
        before, pos = full(data, pos)
        if kind == "d":
            return (before, None), pos
        after, pos = full(data, pos)
        if self.big:
            share_unchanged(before, after, self.big)
        return (before, after), pos

    def reader(self, present: int) -> Callable[[bytes, int], tuple[RowImage, int]]:
        """(data, pos) → (image, next pos) for images with this columns-present bitmap."""
        if self.full is not None and present == (1 << len(self.decoders)) - 1:
            return self.full  # the usual binlog_row_image=FULL case
        return lambda data, pos: self.image(data, pos, present)

    def image(self, data: bytes, pos: int, present: int) -> tuple[RowImage, int]:
        """Decode one row image at `pos`; `present` is the columns-present bitmap as an int (bit i = column i)."""
        decoders = self.decoders
        count = len(decoders)
        if present != (1 << count) - 1:
            return self._partial_image(data, pos, present)
        if self.full is not None:
            return self.full(data, pos)
        nbytes = (count + 7) >> 3
        nulls = int.from_bytes(data[pos:pos + nbytes], "little")
        pos += nbytes
        values: list[Any] = [None] * count
        bit = 1
        for i, decode in enumerate(decoders):
            if not nulls & bit:
                values[i], pos = decode(data, pos)
            bit <<= 1
        return values, pos

    def _partial_image(self, data: bytes, pos: int, present: int) -> tuple[RowImage, int]:
        # The null bitmap has one bit per *present* column (MySQL's rows-event format).
        decoders = self.decoders
        nbytes = (present.bit_count() + 7) >> 3
        nulls = int.from_bytes(data[pos:pos + nbytes], "little")
        pos += nbytes
        values: list[Any] = [None] * len(decoders)
        null_bit = 1
        for i, decode in enumerate(decoders):
            if not present >> i & 1:
                continue
            if not nulls & null_bit:
                values[i], pos = decode(data, pos)
            null_bit <<= 1
        return values, pos


@dataclass(frozen=True, slots=True)
class _TablePlan:
    """A `RowPlan` and the pmr `Table` it was compiled from."""

    table: Any
    plan: RowPlan


class RowsDecoder:
    """Callable: a pmr Write/Update/DeleteRowsEvent (v1 or v2) → `list[(before, after)]`.

    It reads the event's raw packet bytes and never moves pmr's read position, so `event.rows`
    still works afterwards (the differential tests rely on that).
    """

    def __init__(self, ignore_decode_errors: bool = False, limit: int = 4096) -> None:
        self._errors = "ignore" if ignore_decode_errors else "strict"
        # table id → the plan of the last `Table` seen with that id. The same id may name another table version
        # (a server restart reuses ids), hence the identity check; `limit` bounds it (a miss costs one compile).
        self._plans: dict[int, _TablePlan] = {}
        self._limit = limit

    def plan(self, table: Any) -> RowPlan:
        """The plan of pmr's `table`, compiled the first time this very `Table` object is seen."""
        known = self._plans.get(table.table_id)
        if known is not None and known.table is table:
            return known.plan
        if len(self._plans) >= self._limit:
            self._plans.clear()
        plan = RowPlan.for_table(table, self._errors)
        self._plans[table.table_id] = _TablePlan(table, plan)
        return plan

    def __call__(self, event: RowsEvent) -> list[RowPair]:
        return self.rows(event)

    def rows(self, event: RowsEvent | WireRows) -> list[RowPair]:
        if type(event) is WireRows:
            data = event.data
            assert data is not None, "rows event decoded twice"
            table = event.table_obj
            known = self._plans.get(table.table_id)  # `plan` inline: once per rows event, a single-row one too
            plan = known.plan if known is not None and known.table is table else self.plan(table)
            pos, present, present2 = _images_start(data, event.start, event.kind == "u")
            return decode_images(plan, data, pos, event.end, present, present2, event.kind)
        plan = self.plan(event.table_map[event.table_id])
        data: bytes = event.packet.packet._data
        pos, present, present2 = _rows_start(event, data)
        # event_size excludes header and checksum
        try:
            return decode_images(plan, data, pos, _HEADER + event.event_size, present, present2, _kind(event))
        except json_partial.JsonDiffError as exc:
            raise BinlogDecodeError(
                f"cannot rebuild the after image of a partial JSON update (PARTIAL_UPDATE_ROWS_EVENT ending at binlog "
                f"position {event.packet.log_pos}): {exc}", where=Where(table=f"{event.schema}.{event.table}"),
                fix="see the event with mysqlbinlog -vv; to go on, start from a later position (binlog-cdc offsets "
                    "set) and write that table with binlog_row_value_options=''") from None

    def full_images(self, event: WireRows) -> tuple[RowPlan, int] | None:
        """(its table's plan, the position of its first image) when every image of this write, update or delete
        event holds every column (binlog_row_image=FULL) and the plan has its compiled reader; None otherwise."""
        data = event.data
        assert data is not None, "rows event decoded twice"
        table = event.table_obj
        known = self._plans.get(table.table_id)
        plan = known.plan if known is not None and known.table is table else self.plan(table)
        pos, present, present2 = _images_start(data, event.start, event.kind == "u")
        columns = (1 << len(plan.decoders)) - 1
        if plan.full is None or present & columns != columns or present2 & columns != columns:
            return None
        return plan, pos

    def raw(self, event: RowsEvent | WireRows) -> "RawRows":
        """The event's row images undecoded, with what decoding them needs (`decode_raw`, in another process)."""
        if type(event) is WireRows:
            wire = event.data
            assert wire is not None, "rows event decoded twice"
            pos, present, present2 = _images_start(wire, event.start, event.kind == "u")
            return RawRows(event.table_obj, wire[pos:event.end], present, present2, event.kind, self._errors)
        data: bytes = event.packet.packet._data
        pos, present, present2 = _rows_start(event, data)
        return RawRows(event.table_map[event.table_id], data[pos:_HEADER + event.event_size], present, present2,
                       _kind(event), self._errors)

    def decode_raw(self, raw: "RawRows") -> list[RowPair]:
        return decode_images(self.plan(raw.table), raw.data, 0, len(raw.data), raw.present, raw.present2, raw.kind)


@dataclass(frozen=True)
class RawRows:
    """A rows event's row images as bytes, and what decoding them needs: the library's `Table` of its TABLE_MAP
    (the `RowPlan` is built from it), the columns-present bitmaps, and the kind: w(rite), u(pdate), d(elete)."""

    table: Any
    data: bytes
    present: int
    present2: int
    kind: str
    errors: str = "strict"


def _kind(event: RowsEvent) -> str:
    if isinstance(event, PartialUpdateRowsEvent):
        return "p"
    if isinstance(event, UpdateRowsEvent):
        return "u"
    if isinstance(event, WriteRowsEvent):
        return "w"
    if isinstance(event, DeleteRowsEvent):
        return "d"
    raise TypeError(f"not a rows event: {type(event).__name__}")


def decode_images(plan: RowPlan, data: bytes, pos: int, end: int, present: int, present2: int,
                  kind: str) -> list[RowPair]:
    """The row images of `data[pos:end]`, an event of `kind` (w/u/d) with these columns-present bitmaps."""
    # Only the server's bitmap bits for real columns count (padding bits may be set).
    columns = (1 << len(plan.decoders)) - 1
    present &= columns
    present2 &= columns
    full = plan.full
    if full is not None and present == columns:  # binlog_row_image=FULL: `reader` inline
        first = full
        second = full if present2 == columns else plan.reader(present2)
    else:
        first, second = plan.reader(present), plan.reader(present2)
    out: list[RowPair] = []
    append = out.append
    if kind == "u":
        big = plan.big
        while pos < end:
            before, pos = first(data, pos)
            after, pos = second(data, pos)
            if big:
                share_unchanged(before, after, big)
            append((before, after))
    elif kind == "p":
        while pos < end:
            before, pos = first(data, pos)
            after, pos = plan.partial_after(data, pos, present2, before)
            append((before, after))
    elif kind == "w":
        while pos < end:
            after, pos = first(data, pos)
            append((None, after))
    else:
        while pos < end:
            before, pos = first(data, pos)
            append((before, None))
    return out


def share_unchanged(before: RowImage, after: RowImage, columns: tuple[int, ...]) -> None:
    """Point `after` at `before`'s value where a big value did not change (values are immutable): an UPDATE of
    another column carries a BLOB twice, and the record is built with both images alive (issue 17)."""
    for i in columns:
        value = before[i]
        if value is not None and len(value) >= SHARE_MIN and value == after[i]:
            after[i] = value


def _rows_start(event: RowsEvent, data: bytes) -> tuple[int, int, int]:
    """(offset of the first row image, present bitmap, second present bitmap for updates) from the raw bytes.

    Layout: table id (6) + flags (2) [+ v2: extra-data length (2, counting itself) + extra data], then
    any post-header bytes the format description declares beyond those, column count (length-encoded),
    present bitmap(s).
    """
    v2 = event.event_type in _V2_EVENTS
    known = 10 if v2 else 8
    pos = _HEADER + event._declared_post_header_len(known)
    if v2:
        extra = int.from_bytes(data[_HEADER + 8:_HEADER + 10], "little")
        pos += extra - 2
    return _images_start(data, pos, isinstance(event, UpdateRowsEvent))


def _images_start(data: bytes, pos: int, update: bool) -> tuple[int, int, int]:
    """(offset of the first row image, present bitmap, second one) after the post-header, at `pos`: the column
    count (length-encoded) and the columns-present bitmap(s), two for updates."""
    columns = data[pos]
    if columns < 251:
        pos += 1
    else:
        columns, pos = _length_encoded(data, pos)
    nbytes = (columns + 7) >> 3
    present = int.from_bytes(data[pos:pos + nbytes], "little")
    pos += nbytes
    present2 = present
    if update:
        present2 = int.from_bytes(data[pos:pos + nbytes], "little")
        pos += nbytes
    return pos, present, present2


def _length_encoded(data: bytes, pos: int) -> tuple[int, int]:
    first = data[pos]
    if first < 251:
        return first, pos + 1
    size = {252: 2, 253: 3, 254: 8}[first]
    return int.from_bytes(data[pos + 1:pos + 1 + size], "little"), pos + 1 + size


def release_raw_bytes(event: Any) -> None:
    """Drop a decoded rows event's raw bytes: nothing reads them after `RowsDecoder`, and a row with a 16 MB
    BLOB (twice in an update) would otherwise be held twice while its record is built."""
    if type(event) is WireRows:
        event.data = None
        return
    wrapper = getattr(event, "packet", None)
    if wrapper is not None and getattr(wrapper, "packet", None) is not None:
        wrapper.packet = None
