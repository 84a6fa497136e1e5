"""XID and MariaDB GTID events built by `lean_events` are pmr's own, attribute by attribute."""
from __future__ import annotations

import struct

import pytest
from pymysql.protocol import MysqlPacket
from pymysqlreplication.constants import BINLOG
from pymysqlreplication.event import MariadbGtidEvent, QueryEvent, XidEvent
from pymysqlreplication.packet import BinLogPacketWrapper

from connector.binlog.table_map_cache import CachedTableMapEvent, _PacketWrapper


class _Ctl:
    charset = "utf8mb4"

    def _get_dbms(self) -> str:
        return "mariadb"


def _raw(event_type: int, body: bytes, checksum: bool) -> bytes:
    tail = b"\x11\x22\x33\x44" if checksum else b""
    header = struct.pack("<cIBIIIH", b"\0", 1_732_000_000, event_type, 7, 19 + len(body) + len(tail), 4242, 8)
    return header + body + tail


def _build(cls: type, raw: bytes, checksum: bool, allowed: frozenset) -> BinLogPacketWrapper:
    ctl, table_map = _Ctl(), {}
    return cls(MysqlPacket(raw, "utf8mb4"), table_map, ctl, (10, 11, 0), checksum, allowed, None, None, None, None,
               False, False, False, False, False, False, [0] * 40)


def _state(wrapper: BinLogPacketWrapper) -> tuple[dict, dict, int]:
    ours = {k: v for k, v in wrapper.__dict__.items() if k not in ("event", "allowed_events", "packet")}
    event = {k: v for k, v in wrapper.event.__dict__.items() if k not in ("packet", "table_map", "_ctl_connection")}
    return ours, event, wrapper.packet._position


BODIES = {
    "xid": (BINLOG.XID_EVENT, struct.pack("<Q", 123456789012), XidEvent),
    "mariadb-gtid": (BINLOG.MARIADB_GTID_EVENT, struct.pack("<QIB", 987654321, 3, 0x21) + b"\0" * 6, MariadbGtidEvent),
    "mariadb-gtid-standalone": (BINLOG.MARIADB_GTID_EVENT, struct.pack("<QIB", 5, 0, 0x01) + b"\0" * 6,
                                MariadbGtidEvent),
}


@pytest.mark.parametrize("checksum", [True, False], ids=["crc32", "no-checksum"])
@pytest.mark.parametrize("name", sorted(BODIES))
def test_lean_event_equals_pmrs(name: str, checksum: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    event_type, body, event_class = BODIES[name]
    raw = _raw(event_type, body, checksum)
    allowed = frozenset({event_class, CachedTableMapEvent, QueryEvent})
    stock = _build(BinLogPacketWrapper, raw, checksum, allowed)

    def not_called(*args: object, **kwargs: object) -> None:
        raise AssertionError("pmr's own set-up ran")

    monkeypatch.setattr(BinLogPacketWrapper, "__init__", not_called)  # the lean path must not need it
    lean = _build(_PacketWrapper, raw, checksum, allowed)
    assert type(lean.event) is type(stock.event) is event_class
    assert _state(lean) == _state(stock)
    if event_class is MariadbGtidEvent:
        assert lean.event.gtid == stock.event.gtid and lean.event.flags == stock.event.flags
    else:
        assert lean.event.xid == stock.event.xid == 123456789012


def test_other_readers_and_unasked_classes_take_pmrs_path() -> None:
    raw = _raw(BINLOG.XID_EVENT, struct.pack("<Q", 1), True)
    # Not asked for: pmr drops the event (event None), and so does the lean path.
    assert _build(_PacketWrapper, raw, True, frozenset({CachedTableMapEvent, QueryEvent})).event is None
    # A reader without the TABLE_MAP cache (e.g. a stock one) is stock pmr, attribute by attribute.
    allowed = frozenset({XidEvent})
    assert _state(_build(_PacketWrapper, raw, True, allowed)) == _state(_build(BinLogPacketWrapper, raw, True, allowed))
