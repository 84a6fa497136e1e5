"""The replication connection's packets, framed by us and handed to python-mysql-replication when we pass.

pmr's `BinLogStreamReader.fetchone` reads a packet (`Connection._read_packet`), builds its event and keeps its
own state (positions, table map, format description). `PacketFeed` sits on that connection once pmr's handshake
and dump command are done: `next()` reads the next packet's payload for the reader's own decoder (wire_events.py)
straight from the connection's buffered socket file; a packet the decoder does not take goes back with
`give_back()` and pmr's next `fetchone` gets exactly that packet first (wrapped and checked as pymysql would:
an error packet raises its pymysql error), then reads the connection as usual (when pmr skips the packet, e.g. a
MariaDB checkpoint, it reads on by itself).

Why not pymysql's `_read_packet`: per packet it checks the socket timeout, makes two guarded reads, builds a
`MysqlPacket` and asks it whether it is an error, a few µs each time; a single-row transaction is five or six
packets (issue 27). The framing here keeps what matters of pymysql's: the 4-byte header (3-byte length,
sequence number), continuation packets of payloads of 16 MB and more, the connection's sequence number (pmr's
reads after ours check it), a short read or socket error closing the connection as
`OperationalError(CR_SERVER_LOST)`, which the streaming loop reconnects after.
"""

from __future__ import annotations

from typing import Any

from pymysql import err
from pymysql.constants import CR
from pymysql.protocol import MysqlPacket

__all__ = ["PacketFeed"]

_MAX_PACKET_LEN = 0xFFFFFF  # a payload this long continues in the next packet


class PacketFeed:
    """Packets of one pymysql connection in replication mode, with one packet of give-back for pmr."""

    def __init__(self, connection: Any) -> None:
        self._connection = connection
        self._back: bytes | None = None
        # pmr calls `connection._read_packet()`: the instance attribute answers first with a given-back packet
        self._pymysql_read = type(connection)._read_packet
        connection._read_packet = self._read_for_pmr

    def next(self) -> bytes:
        """The next packet's payload; that of an event starts with the OK byte 0."""
        data = self._back
        if data is not None:
            self._back = None
            return data
        # one function per packet, the sequence check inline: this runs for every event (issue 27)
        conn = self._connection
        rfile = conn._rfile
        if rfile is None:  # closed under us (pmr closes it when it reconnects by itself)
            raise err.OperationalError(CR.CR_SERVER_LOST, "Lost connection to MySQL server during query")
        try:
            header = rfile.read(4)
            if len(header) == 4:
                length = header[0] | header[1] << 8 | header[2] << 16
                number = header[3]
                if number != conn._next_seq_id:
                    self._sequence(conn, number)
                conn._next_seq_id = (number + 1) & 0xFF
                data = rfile.read(length)
                if len(data) == length:
                    if length == _MAX_PACKET_LEN:
                        data = self._continued(conn, rfile, [data])
                    return data
        except OSError as exc:
            conn._force_close()
            raise err.OperationalError(CR.CR_SERVER_LOST,
                                       f"Lost connection to MySQL server during query ({exc})") from None
        conn._force_close()
        raise err.OperationalError(CR.CR_SERVER_LOST, "Lost connection to MySQL server during query")

    def give_back(self, data: bytes) -> None:
        """`data` (the last payload `next` returned) is what pmr's next read gets."""
        self._back = data

    def _continued(self, conn: Any, rfile: Any, parts: list[bytes]) -> bytes:
        """The rest of a payload of 16 MB or more: packets of 0xFFFFFF bytes until a shorter one."""
        while True:
            header = rfile.read(4)
            if len(header) < 4:
                break
            length = header[0] | header[1] << 8 | header[2] << 16
            self._sequence(conn, header[3])
            part = rfile.read(length)
            if len(part) < length:
                break
            parts.append(part)
            if length < _MAX_PACKET_LEN:
                return b"".join(parts)
        conn._force_close()
        raise err.OperationalError(CR.CR_SERVER_LOST, "Lost connection to MySQL server during query")

    @staticmethod
    def _sequence(conn: Any, number: int) -> None:
        if number != conn._next_seq_id:
            conn._force_close()
            if number == 0:  # MariaDB sends its shutdown error with sequence number 0 (as pymysql reads it)
                raise err.OperationalError(CR.CR_SERVER_LOST, "Lost connection to MySQL server during query")
            raise err.InternalError(f"Packet sequence number wrong - got {number} expected {conn._next_seq_id}")
        conn._next_seq_id = (number + 1) & 0xFF

    def _read_for_pmr(self, packet_type: type = MysqlPacket) -> MysqlPacket:
        data = self._back
        if data is None:
            return self._pymysql_read(self._connection, packet_type)
        self._back = None
        packet = packet_type(data, self._connection.encoding)
        if packet.is_error_packet():
            packet.raise_for_error()
        return packet
