"""The replication connection's packets, read by us first and handed to python-mysql-replication when we pass.

pmr's `BinLogStreamReader.fetchone` reads a packet (`Connection._read_packet`), builds its event and keeps its
own state (positions, table map, format description). `PacketFeed` sits on that connection: `next()` reads the
next packet for the reader's own decoder (wire_events.py); a packet the decoder does not take goes back with
`give_back()` and pmr's next `fetchone` reads exactly that packet first, then the connection as usual (when pmr
skips the packet, e.g. a MariaDB checkpoint, it reads on by itself). pymysql frames the packets either way
(continuation packets above 16 MB, sequence numbers, error packets raised as pymysql errors).
"""

from __future__ import annotations

from typing import Any

from pymysql.protocol import MysqlPacket

__all__ = ["PacketFeed"]


class PacketFeed:
    """Packets of one pymysql connection in replication mode, with one packet of give-back for pmr."""

    def __init__(self, connection: Any) -> None:
        self._connection = connection
        self._read = type(connection)._read_packet  # pymysql's own method, bound per call below
        self._back: MysqlPacket | None = None
        # pmr calls `connection._read_packet()`: the instance attribute answers first with a given-back packet
        connection._read_packet = self._read_for_pmr

    def next(self) -> MysqlPacket:
        """The next packet; its payload (`_data`) of an event starts with the OK byte 0."""
        packet = self._back
        if packet is None:
            return self._read(self._connection)
        self._back = None
        return packet

    def give_back(self, packet: MysqlPacket) -> None:
        """`packet` (the last one `next` returned) is what pmr's next read gets."""
        self._back = packet

    def _read_for_pmr(self, packet_type: type = MysqlPacket) -> MysqlPacket:
        packet = self._back
        if packet is None:
            return self._read(self._connection, packet_type)
        self._back = None
        return packet
