"""The SQL text of a MySQL ROWS_QUERY or MariaDB ANNOTATE_ROWS event (include.query), read from the raw body."""

from __future__ import annotations

from pymysqlreplication.event import MariadbAnnotateRowsEvent

__all__ = ["rows_query_text"]

_PACKET_HEADER = 20  # pmr's packet data: 1 OK byte + the 19-byte event header


def rows_query_text(event: object) -> str:
    """The SQL of a MySQL ROWS_QUERY or MariaDB ANNOTATE_ROWS event, from the raw body.

    ROWS_QUERY starts with a 1-byte length that MySQL truncates at 255: the text is the rest of the event
    (as mysql-binlog-connector-java reads it). pmr's own `RowsQueryLogEvent.query` drops 4 bytes even
    when there is no checksum, e.g. inside a compressed transaction, so it is not used."""
    if isinstance(event, MariadbAnnotateRowsEvent):
        raw = bytes(event.sql_statement)
    else:
        data = event.packet.packet._data  # type: ignore[attr-defined]
        raw = bytes(data[_PACKET_HEADER + 1:_PACKET_HEADER + event.event_size])  # type: ignore[attr-defined]
    return raw.decode("utf-8", "replace")
