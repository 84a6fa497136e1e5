"""XID and MariaDB GTID events built without python-mysql-replication's generic event set-up.

Every transaction has one of each (MariaDB; MySQL has the XID), so a workload of single-row transactions
reads as many of them as row events. pmr builds each through `BinLogPacketWrapper.__init__` and
`BinLogEvent.__init__` (a dozen keyword arguments, the server's DBMS asked again, a checksum check
we never enable): ~5 µs for an XID and ~9 µs for a MariaDB GTID on the 2-core bench machine, where the
body is 8 or 13 bytes. `lean_event` decodes those bodies itself and gives the same event classes with the
same attributes (tests/unit/binlog/test_lean_events.py compares them with pmr's, attribute by attribute).
"""

from __future__ import annotations

import struct
from typing import Any

from pymysqlreplication.constants import BINLOG
from pymysqlreplication.event import MariadbGtidEvent, XidEvent

__all__ = ["lean_event"]

# OK byte, then the event header: timestamp, type, server_id, event_size, log_pos, flags
_HEADER = struct.Struct("<xIBIIIH")
_XID = struct.Struct("<Q")
_MARIADB_GTID = struct.Struct("<QIB")  # sequence number, domain id, flags
_CLASSES = {BINLOG.XID_EVENT: XidEvent, BINLOG.MARIADB_GTID_EVENT: MariadbGtidEvent}


def lean_event(wrapper: Any, from_packet: Any, table_map: Any, ctl_connection: Any, mysql_version: Any,
               use_checksum: bool, allowed_events: Any, args: tuple) -> bool:
    """Set `wrapper` (a fresh pmr packet wrapper, its __init__ not run) up as pmr would for an XID or MariaDB
    GTID event of `from_packet`, and return True; False (nothing touched) for any other event, a checksum to
    verify, or an event class the reader did not ask for, which then take pmr's own path. `args` are the rest
    of `BinLogPacketWrapper`'s arguments, positional, as pmr's stream passes them."""
    data = from_packet._data
    if len(data) < 21 or len(args) != 11:
        return False
    event_class = _CLASSES.get(data[5])
    (_, _, _, _, _, ignore_decode_errors, verify_checksum, _, enable_logging, use_column_name_cache,
     post_header_lengths) = args
    if event_class is None or event_class not in allowed_events or (verify_checksum and use_checksum):
        return False
    timestamp, event_type, server_id, size, log_pos, flags = _HEADER.unpack_from(data)
    body = size - 23 if use_checksum else size - 19
    if len(data) < 20 + (8 if event_class is XidEvent else 13):
        return False  # truncated: pmr's path raises what it raises
    from_packet.advance(20)
    fields = wrapper.__dict__
    fields.update(read_bytes=0, _BinLogPacketWrapper__data_buffer=b"", packet=from_packet,
                  charset=ctl_connection.charset, enable_logging=enable_logging,
                  use_column_name_cache=use_column_name_cache, timestamp=timestamp, event_type=event_type,
                  server_id=server_id, event_size=size, log_pos=log_pos, flags=flags)
    event = object.__new__(event_class)
    event.__dict__.update(packet=wrapper, table_map=table_map, event_type=event_type, timestamp=timestamp,
                          event_size=body, _post_header_lengths=post_header_lengths,
                          _ctl_connection=ctl_connection, mysql_version=mysql_version,
                          _ignore_decode_errors=ignore_decode_errors, _verify_checksum=False, _is_event_valid=None,
                          _processed=True, complete=True, dbms=ctl_connection._get_dbms())
    if event_class is XidEvent:
        event.xid = _XID.unpack_from(data, 20)[0]
        wrapper.read_bytes = 8
    else:
        seq_no, domain_id, gtid_flags = _MARIADB_GTID.unpack_from(data, 20)
        event.__dict__.update(server_id=server_id, gtid_seq_no=seq_no, domain_id=domain_id, flags=gtid_flags,
                              gtid=f"{domain_id}-{server_id}-{seq_no}")
        wrapper.read_bytes = 13
    from_packet.advance(wrapper.read_bytes)
    wrapper.event = event
    return True
