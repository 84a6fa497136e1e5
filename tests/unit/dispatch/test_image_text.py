"""The fused row path's bytes → text functions (connector/dispatch/image_text.py) write what the image reader and the
image writer write together, byte for byte, and decline where the image writer declines. The conformance goldens
check the same on every streamed row (BINLOG_CDC_FUSED_ROWS=check); these pin packed DECIMALs of every layout,
ENUM members and text escapes on hand-made row images."""

from __future__ import annotations

import random
from decimal import Decimal
from types import SimpleNamespace
from typing import Any

import pytest
from pymysqlreplication.constants import FIELD_TYPE

from connector.binlog.rows_decoder import RowPlan
from connector.config.modes import Operation
from connector.events.row_renderer import image_writer
from schema_history.model import TableId
from tests.unit.dispatch.test_dispatcher import _dispatcher, _offset, _source

T = TableId("inventory", "prices")
_DIG2BYTES = (0, 1, 1, 2, 2, 3, 3, 4, 4, 4)


def pack_decimal(value: Decimal, precision: int, scale: int) -> bytes:
    """MySQL's decimal2bin: digit groups of 9 in 4 bytes (leftovers in fewer), sign bit flipped, negatives
    complemented."""
    negative = value < 0
    digits = f"{value.copy_abs():.{scale}f}".split(".")
    whole, frac = digits[0].lstrip("0") or "0", digits[1] if scale else ""
    intg = precision - scale
    whole = whole.rjust(intg, "0")
    out = b""
    lead = intg % 9
    groups = ([whole[:lead]] if lead else []) + [whole[i:i + 9] for i in range(lead, intg, 9)]
    for g in groups:
        out += int(g or "0").to_bytes(_DIG2BYTES[len(g)] if len(g) < 9 else 4, "big")
    for i in range(0, scale - scale % 9, 9):
        out += int(frac[i:i + 9]).to_bytes(4, "big")
    if scale % 9:
        tail = frac[scale - scale % 9:]
        out += int(tail).to_bytes(_DIG2BYTES[len(tail)], "big")
    packed = bytearray(out)
    packed[0] ^= 0x80
    if negative:
        packed = bytearray(b ^ 0xFF for b in packed)
    return bytes(packed)


def _table(ddl_columns: list[tuple[str, SimpleNamespace]]) -> Any:
    return SimpleNamespace(table_id=7, schema=T.database, table=T.table, columns=[c for _, c in ddl_columns])


def _col(type_: int, **meta: Any) -> SimpleNamespace:
    return SimpleNamespace(**{"type": type_, "unsigned": False, "character_set_name": None, **meta})


def _texts(ddl: str, columns: list[tuple[str, SimpleNamespace]]) -> tuple[Any, Any, Any]:
    """(bytes → text function, the image reader, the image writer) of the table `ddl` creates."""
    dispatcher, _sink, _tracker = _dispatcher()
    dispatcher.ddl(ddl, "inventory", _source(100), _offset(100))
    fused = dispatcher.fused_rows(T, Operation.CREATE, _source(200))
    assert fused is not None
    plan = RowPlan.for_table(_table(columns))
    texts = fused.image_text(plan)
    assert texts is not None and plan.full is not None
    return texts, plan.full, image_writer(fused.table.table)


def _same(texts: Any, read: Any, write: Any, data: bytes) -> str | None:
    """Both ways of writing the image at 0 of `data`: equal text and end, or both declined."""
    ours = texts(data, 0)
    values, end = read(data, 0)
    try:
        expected: str | None = write(values)
    except LookupError:
        expected = None
    if expected is None:
        assert ours is None, values
        return None
    assert ours is not None, values
    assert ours[0] == expected and ours[2] == end == len(data), values
    return ours[0]


LAYOUTS = [(1, 0), (4, 4), (5, 0), (8, 3), (9, 0), (10, 2), (12, 2), (18, 9), (19, 1), (20, 10), (28, 8), (30, 20),
           (38, 0), (65, 0), (65, 30)]


@pytest.mark.parametrize("precision,scale", LAYOUTS)
def test_packed_decimals_of_every_layout(precision: int, scale: int) -> None:
    ddl = f"CREATE TABLE prices (id INT PRIMARY KEY, d DECIMAL({precision},{scale}))"
    columns = [("id", _col(FIELD_TYPE.LONG)), ("d", _col(FIELD_TYPE.NEWDECIMAL, precision=precision, decimals=scale))]
    texts, read, write = _texts(ddl, columns)
    rng = random.Random(precision * 100 + scale)
    intg = precision - scale
    values = [Decimal(0), Decimal("-0")]
    for _ in range(300):
        whole = rng.randrange(10 ** rng.randint(0, intg)) if intg else 0
        frac = rng.randrange(10 ** scale) if scale else 0
        text = f"{whole}.{frac:0{scale}d}" if scale else str(whole)
        values.append(Decimal(text) * rng.choice((1, -1)))
    values.append(Decimal("9" * intg + ("." + "9" * scale if scale else "")))  # the largest of each sign
    values.append(values[-1].copy_negate())
    for value in values:
        data = b"\x00" + (7).to_bytes(4, "little", signed=True) + pack_decimal(value, precision, scale)
        assert read(data, 0)[0][1] == value  # the test's packing is the server's
        assert _same(texts, read, write, data) is not None


def test_enum_text_and_nulls_and_declines() -> None:
    ddl = ("CREATE TABLE prices (id INT PRIMARY KEY, state ENUM('new','o\"pen','clo\\\\sed') NOT NULL, "
           "name VARCHAR(20), amount DECIMAL(6,2) NOT NULL)")
    columns = [("id", _col(FIELD_TYPE.LONG)), ("state", _col(FIELD_TYPE.ENUM, size=1, enum_values=["", "new",
                                                              'o"pen', "clo\\sed"])),
               ("name", _col(FIELD_TYPE.VARCHAR, max_length=80, character_set_name="utf8mb4")),
               ("amount", _col(FIELD_TYPE.NEWDECIMAL, precision=6, decimals=2))]
    texts, read, write = _texts(ddl, columns)
    one = (1).to_bytes(4, "little")
    amount = pack_decimal(Decimal("-12.5"), 6, 2)
    written = set()
    for member in range(4):
        for name in ("plain", 'a "quoted" \\ name', "tab\there", "\x01ctl", "héllo 🐍", ""):
            encoded = name.encode("utf-8")
            data = b"\x00" + one + bytes([member]) + bytes([len(encoded)]) + encoded + amount
            written.add(_same(texts, read, write, data))
    assert len(written) == 24  # every member and name gave its own text
    # NULL name (bit 2): its null text; NULL amount in a NOT NULL column (bit 3): declined, as the writer declines
    assert '"name":null' in (_same(texts, read, write, b"\x04" + one + b"\x01" + amount) or "")
    assert _same(texts, read, write, b"\x08" + one + b"\x01" + b"\x01x") is None
    # an ENUM byte beyond the members: declined (the general path then says what is wrong), not an exception
    assert texts(b"\x00" + one + b"\x09" + b"\x01x" + amount, 0) is None
