"""Kafka Connect's `TimestampRouter`: the topic becomes `topic.format` with `${topic}` and `${timestamp}` (the record
timestamp formatted with the SimpleDateFormat `timestamp.format`, UTC) replaced.

Debezium's source records carry no timestamp, except those the outbox EventRouter makes (its
`table.field.event.timestamp` column, or the envelope's `ts_ms`); on any other record Kafka's router throws
"Timestamp missing on record" and the connector stops, so binlog-cdc stops there too, saying how to guard it.
"""

from __future__ import annotations

import datetime as dt

from connector.events.kinds import ConnectRecord
from connector.transforms.structs import with_topic
from connector.transforms.timestamps import Formatter

__all__ = ["TimestampRouter"]

_CUTOVER_MS = -12_219_292_800_000  # 1582-10-15T00:00Z: before it Java's calendar is Julian
_EPOCH = dt.datetime(1970, 1, 1)


class TimestampRouter:
    def __init__(self, topic_format: str, formatter: Formatter) -> None:
        self._format, self._formatter = topic_format, formatter
        self._topics: dict[tuple[str, int], str] = {}

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        ms = record.timestamp
        if ms is None:
            raise ValueError(f"TimestampRouter: Timestamp missing on record (topic {record.topic}): Debezium's records "
                             "have a timestamp only after outbox.EventRouter; guard the router with a predicate "
                             "(TopicNameMatches) or route with RegexRouter")
        if ms < _CUTOVER_MS:
            raise ValueError(f"TimestampRouter: record timestamp {ms} ms is before the Gregorian cutover, where "
                             "Java's calendar is Julian; binlog-cdc does not format it")
        key = (record.topic, ms)
        topic = self._topics.get(key)
        if topic is None:
            try:
                stamp = self._formatter(_EPOCH + dt.timedelta(milliseconds=ms))
            except OverflowError:  # beyond year 9999: a record error, not a traceback
                raise ValueError(f"TimestampRouter: record timestamp {ms} ms is after the year 9999") from None
            # literal replacements, as Kafka's Pattern.LITERAL + quoteReplacement
            topic = self._format.replace("${topic}", record.topic).replace("${timestamp}", stamp)
            if len(self._topics) < 4096:  # a cache of the usual few (topic, time) pairs, bounded
                self._topics[key] = topic
        return with_topic(record, topic)
