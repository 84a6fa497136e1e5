"""MilliSecondsBehindSource through the real streaming loop: the lag of the last binlog event read, 0 once the
server sends heartbeats (it has nothing more), never the age of the FORMAT_DESCRIPTION a (re)connect re-sends
(the time its binlog file was created). The real-server side is tests/integration/service/test_lag_metric.py."""
from __future__ import annotations

import time
from typing import Iterator

from pymysqlreplication.event import FormatDescriptionEvent, HeartbeatLogEvent

from connector.offsets.position import SourceOffset
from connector.binlog.reader import PositionedEvent
from connector.ops.metrics import StreamingStats
from connector.offsets.memory_store import MemoryOffsetStore
from connector.shutdown import ShutdownToken
from connector.streaming.loop import StreamingLoop
from schema_history.stores.memory import MemoryHistoryStore
from tests.unit.streaming.scripted import SERVER_ID, Binlog, Pipeline, _event, settings

HOUR_S, DAY_S = 3600, 86400


def _description(ts: int) -> PositionedEvent:
    """What a server sends right after a dump connects (log_pos 0): the file's FORMAT_DESCRIPTION."""
    return PositionedEvent(_event(FormatDescriptionEvent), "mysql-bin.000001", 4, 4, ts, SERVER_ID, artificial=True)


def _heartbeat() -> PositionedEvent:
    return PositionedEvent(_event(HeartbeatLogEvent), "mysql-bin.000001", 4, 4, 0, SERVER_ID)


class _Reader:
    """Yields `events`, noting after each one (the loop has handled it when it asks for the next) the metric."""

    def __init__(self, events: list[tuple[str, PositionedEvent]], stats: StreamingStats, token: ShutdownToken):
        self._events, self._stats, self._token = events, stats, token
        self.seen: dict[str, int] = {}
        self.file, self.next_pos = "mysql-bin.000001", 4

    def open(self) -> None:
        pass

    def events(self) -> Iterator[PositionedEvent]:
        for name, pe in self._events:
            yield pe
            self.seen[name] = self._stats.ms_behind_source
        self._token.request()

    def close(self) -> None:
        pass

    def has_pending(self) -> bool:
        return False

    def socket(self) -> None:
        return None


def test_lag_is_the_last_events_age_and_zero_once_caught_up() -> None:
    now = int(time.time())
    binlog = Binlog().ddl("CREATE TABLE customers (id INT PRIMARY KEY, name VARCHAR(20))")
    binlog.begin().insert("customers", [1, "a"]).commit()
    for pe in binlog.events[1:]:
        pe.timestamp = now - HOUR_S  # a change written an hour ago (as with SET timestamp), read now
    pipeline = Pipeline(settings(), MemoryHistoryStore(), MemoryOffsetStore())
    handler = pipeline.handler(SourceOffset.from_map({"file": "mysql-bin.000001", "pos": 4}))
    stats, token = StreamingStats(), ShutdownToken()
    reader = _Reader([("ddl", binlog.events[0]), *((f"change {i}", pe) for i, pe in enumerate(binlog.events[1:])),
                      ("reconnect", _description(now - DAY_S)), ("heartbeat", _heartbeat()),
                      ("second reconnect", _description(now - DAY_S))], stats, token)
    StreamingLoop(handler, lambda: reader, token, stats=stats).run()

    last_change = f"change {len(binlog.events) - 2}"
    slack_ms = 60_000  # the hour is what is measured; a minute covers a slow machine
    assert HOUR_S * 1000 <= reader.seen[last_change] < HOUR_S * 1000 + slack_ms, reader.seen
    # The description of a binlog file a day old says nothing about the lag: the last change's age stays.
    assert HOUR_S * 1000 <= reader.seen["reconnect"] < HOUR_S * 1000 + slack_ms, reader.seen
    assert reader.seen["heartbeat"] == 0, reader.seen
    assert reader.seen["second reconnect"] == 0, reader.seen
    assert stats.binlog_events_seen == len(reader.seen)
