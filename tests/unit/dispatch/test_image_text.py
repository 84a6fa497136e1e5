"""The fused row path's bytes → text functions (connector/dispatch/image_text.py) write what the image reader and the
image writer write together, byte for byte, and decline where the image writer declines. The conformance goldens
check the same on every streamed row (BINLOG_CDC_FUSED_ROWS=check); these pin packed DECIMALs of every layout,
ENUM members and text escapes on hand-made row images."""

from __future__ import annotations

import datetime
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


def _texts(ddl: str, columns: list[tuple[str, SimpleNamespace]], **props: str) -> tuple[Any, Any, Any]:
    """(bytes → text function, the image reader, the image writer) of the table `ddl` creates."""
    dispatcher, _sink, _tracker = _dispatcher(**props)
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


def pack_datetime(value: datetime.datetime, fsp: int) -> bytes:
    """MySQL's DATETIME2: (year * 13 + month, day, hour, minute, second) bit fields + 2^39, then fsp's fraction."""
    ym = value.year * 13 + value.month
    packed = ((ym << 5 | value.day) << 17 | value.hour << 12 | value.minute << 6 | value.second) + (1 << 39)
    frac_size = (fsp + 1) // 2
    fraction = value.microsecond // 10 ** (6 - 2 * frac_size) if frac_size else 0
    return packed.to_bytes(5, "big") + fraction.to_bytes(frac_size, "big", signed=True)


@pytest.mark.parametrize("fsp", range(7))
@pytest.mark.parametrize("mode", ["adaptive_time_microseconds", "connect", "nanoseconds"])
def test_datetimes_of_every_precision(fsp: int, mode: str) -> None:
    ddl = f"CREATE TABLE prices (id INT PRIMARY KEY, at DATETIME({fsp}), due DATETIME({fsp}) NOT NULL)"
    columns = [("id", _col(FIELD_TYPE.LONG)), ("at", _col(FIELD_TYPE.DATETIME2, fsp=fsp)),
               ("due", _col(FIELD_TYPE.DATETIME2, fsp=fsp))]
    texts, read, write = _texts(ddl, columns, time_precision_mode=mode)
    rng = random.Random(fsp)
    step = 10 ** (6 - fsp)
    values = [datetime.datetime(1970, 1, 1), datetime.datetime(100, 1, 1), datetime.datetime(9999, 12, 31, 23, 59, 59,
                                                                                                 999999 // step * step),
              datetime.datetime(2024, 2, 29, 12, 0, 0, step if fsp else 0), datetime.datetime(1969, 12, 31, 23, 59, 59)]
    for _ in range(300):
        day = datetime.datetime(rng.randint(100, 9999), 1, 1) + datetime.timedelta(days=rng.randrange(365))
        values.append(day.replace(hour=rng.randrange(24), minute=rng.randrange(60), second=rng.randrange(60),
                                  microsecond=rng.randrange(1_000_000) // step * step))
    one = (1).to_bytes(4, "little")
    for value in values:
        data = b"\x00" + one + pack_datetime(value, fsp) * 2
        assert read(data, 0)[0][1] == value  # the test's packing is the server's
        written = _same(texts, read, write, data)
        # a NanoTimestamp is a Java long: outside ~1677-2262 it has no value, and both decline
        assert written is not None or (mode == "nanoseconds" and not 1677 < value.year < 2262)
    # what the general path must take: a zero date (NULL in the nullable column, the epoch substituted in the NOT NULL
    # one), a year below 100 (the two-digit-year adjuster), an invalid day: declined, never another text
    zero = (1 << 39).to_bytes(5, "big") + bytes((fsp + 1) // 2)
    early = pack_datetime(datetime.datetime(99, 6, 1), fsp)
    for at, due in ((zero, zero), (early, early), (zero, pack_datetime(values[3], fsp))):
        data = b"\x00" + one + at + due
        assert texts(data, 0) is None and read(data, 0)[1] == len(data)


def pack_timestamp(seconds: int, microsecond: int, fsp: int) -> bytes:
    """MySQL's TIMESTAMP2: big-endian seconds since the epoch, then fsp's fraction as DATETIME2 has it."""
    frac_size = (fsp + 1) // 2
    fraction = microsecond // 10 ** (6 - 2 * frac_size) if frac_size else 0
    return seconds.to_bytes(4, "big") + fraction.to_bytes(frac_size, "big", signed=True)


@pytest.mark.parametrize("fsp", range(7))
def test_timestamps_kept_by_their_bytes(fsp: int) -> None:
    """TIMESTAMP texts are kept by the value's bytes (64 per column): a value seen before, one seen before the kept
    texts were dropped and a zero TIMESTAMP all give the general path's."""
    ddl = f"CREATE TABLE prices (id INT PRIMARY KEY, at TIMESTAMP({fsp}) NULL, due TIMESTAMP({fsp}) NOT NULL)"
    columns = [("id", _col(FIELD_TYPE.LONG)), ("at", _col(FIELD_TYPE.TIMESTAMP2, fsp=fsp)),
               ("due", _col(FIELD_TYPE.TIMESTAMP2, fsp=fsp))]
    texts, read, write = _texts(ddl, columns)
    rng = random.Random(fsp)
    step = 10 ** (6 - fsp)
    stamps = [(1, 0), (2**31 - 1, 999999 // step * step), (1706781600, step if fsp else 0), (1706781600, 0)]
    stamps += [(rng.randrange(1, 2**31), rng.randrange(1_000_000) // step * step) for _ in range(200)]
    one = (1).to_bytes(4, "little")
    seen: dict[bytes, str] = {}
    # each value three times, the second time right after the first and the third after every other one
    for value in [s for s in stamps for _ in (0, 1)] + stamps:
        packed = pack_timestamp(*value, fsp)
        data = b"\x00" + one + packed * 2
        assert read(data, 0)[0][1] == datetime.datetime(1970, 1, 1) + datetime.timedelta(0, *value)
        written = _same(texts, read, write, data)
        assert written is not None and seen.setdefault(packed, written) == written
    zero = bytes(4 + (fsp + 1) // 2)  # the general path's (its converter's null for the epoch), each time
    for _ in range(2):
        _same(texts, read, write, b"\x00" + one + zero + pack_timestamp(*stamps[2], fsp))
        assert texts(b"\x00" + one + zero * 2, 0) is None
    kept = [v for k, v in texts.__kwdefaults__.items() if k.startswith("k")]
    assert len(kept) == 2 and all(0 < len(k) <= 64 for k in kept)
