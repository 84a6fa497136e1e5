"""The reconnecting streaming loop: binlog events → the handler, until shutdown.

A lost connection reconnects at the streaming state's restart point (the current transaction's start, with
its emitted events and rows skipped, as after a restart from a stored offset), with exponential back-off
bounded by `errors.max.retries`. Between transactions the loop emits heartbeats, runs the housekeeping
(acks, offset commits, purge checks, the status file) and parks when a blocking snapshot asks it to.
"""

from __future__ import annotations

import logging
import time
from typing import Callable, Iterable, Protocol

import pymysql
from pymysqlreplication.event import HeartbeatLogEvent

from connector.offsets.position import SourceOffset
from connector.binlog.reader import PositionedEvent
from connector.binlog.wire_events import COMMIT_EVENTS
from connector.errors import SchemaRegistryUnavailable, SourceConnectionError, Where
from connector.ops.metrics import StreamingStats
from connector.streaming.handler import ResumePoint, StreamingHandler
from connector.streaming.heartbeat import Heartbeat
from connector.streaming.pause import PauseGate, StopSignal

__all__ = ["EventReader", "ReaderFactory", "StreamingLoop", "RETRIABLE"]

log = logging.getLogger(__name__)

# Only what re-reading the binlog can cure: Kafka's retriable errors are not (their records would be skipped as
# already emitted); the registry is, as the record is built again. Anything else ends the loop.
RETRIABLE: tuple[type[BaseException], ...] = (pymysql.err.OperationalError, ConnectionError, OSError,
                                              SourceConnectionError, SchemaRegistryUnavailable)


class EventReader(Protocol):
    """One binlog connection (`connector.binlog.reader.BinlogReader`, or a scripted one in tests)."""

    file: str
    next_pos: int

    def open(self) -> None: ...

    def events(self) -> Iterable[PositionedEvent]: ...

    def close(self) -> None: ...

    def has_pending(self) -> bool:
        """Whether the server has sent bytes not read yet (False when that cannot be known)."""
        ...

    def socket(self) -> object:
        """The replication connection's socket, handed to the `idle` hook (None when there is none)."""
        ...


# A reader starting at the handler state's restart point (file/pos, or its GTID set); `on_reader` is told of
# each one once it is open (the status file shows its position).
ReaderFactory = Callable[[], EventReader]


def note_event(stats: StreamingStats, pe: PositionedEvent, now_ms: int, events: int = 1) -> None:
    """The streaming metrics' view of `events` events read, `pe` the last (Debezium's
    BinlogStreamingChangeEventSource.onEvent, per event there)."""
    # The FORMAT_DESCRIPTION a server sends at every (re)connect carries the time its binlog file was created: it
    # says nothing about the lag, and a caught-up connector would report the file's age until the next heartbeat.
    stats.event(pe.file, pe.next_pos, 0 if pe.artificial else pe.timestamp, now_ms, events)
    if type(pe.event) is HeartbeatLogEvent:
        stats.caught_up()


class StreamingLoop:
    def __init__(self, handler: StreamingHandler, open_reader: ReaderFactory, token: StopSignal, *,
                 stats: StreamingStats | None = None, heartbeat: Heartbeat | None = None,
                 housekeeping: Callable[[], None] = lambda: None, idle: Callable[[object], None] | None = None,
                 holding: Callable[[], bool] = lambda: True,
                 gate: PauseGate | None = None,
                 max_retries: int = -1, on_reader: Callable[[EventReader | None], None] = lambda r: None) -> None:
        self.handler = handler
        self.state = handler.state
        self._open_reader = open_reader
        self._token = token
        self._stats = stats if stats is not None else StreamingStats()
        self._heartbeat = heartbeat
        self._housekeeping = housekeeping
        # Told between transactions when the server has sent nothing more yet (the reader is about to wait), with
        # the reader's socket: records held back for batching (encode.workers, small groups) go now, not after the wait.
        self._idle = idle
        self._holding = holding  # whether `idle` has anything to send (asked before the server is)
        self._gate = gate
        self._max_retries = max_retries
        self._on_reader = on_reader
        self._attempts = 0  # reconnects since the last event read

    def run(self) -> None:
        state, stats = self.state, self._stats
        try:
            while not self._token.requested:
                if state.in_tx:
                    # Reconnect at the transaction start and skip what was already emitted (its END was not).
                    state.resume = ResumePoint(state.events, state.rows, state.tx, in_progress=True)
                    state.in_tx = False
                reader = self._open_reader()
                try:
                    reader.open()
                    self._on_reader(reader)
                    if self._read(reader):
                        log.warning("binlog stream ended at %s:%s; reconnecting", reader.file, reader.next_pos)
                except RETRIABLE as exc:
                    stats.set_connected(False)
                    stats.disconnects += 1
                    self._attempts += 1
                    attempts = self._attempts
                    if self._max_retries >= 0 and attempts > self._max_retries:
                        raise SourceConnectionError(
                            f"binlog connection lost after {attempts} attempt(s) ({' '.join(str(exc).split())})",
                            where=Where(reader.file, reader.next_pos),
                            fix="check that the database server is reachable; errors.max.retries="
                                f"{self._max_retries} bounds the reconnects (-1: no limit)") from exc
                    delay = min(30.0, 0.5 * 2 ** min(attempts, 6))
                    log.warning("binlog connection lost at %s:%s (%s); reconnecting from %s:%s in %.1f s "
                                "(attempt %d)", reader.file, reader.next_pos, exc, state.file, state.restart_pos,
                                delay, attempts)
                    self._token.wait(delay)
                finally:
                    reader.close()
                self._park_if_asked()
        finally:
            stats.set_connected(False)
            if self._heartbeat is not None:
                self._heartbeat.close()
        log.info("stopping: last reader position %s:%s", state.file, state.restart_pos)

    def _read(self, reader: EventReader) -> bool:
        """Feed the reader's events to the handler; True when the stream ended by itself."""
        state, heartbeat, gate, handle = self.state, self._heartbeat, self._gate, self.handler.handle
        next_housekeeping = 0.0
        idle, holding = self._idle, self._holding
        has_pending, server = reader.has_pending, reader.socket
        unnoted = 0  # events read since the metrics last saw one
        try:
            for pe in reader.events():
                handle(pe)
                unnoted += 1 if pe.absorbed is None else 2  # a TABLE_MAP the reader held back is an event too
                if not state.in_tx:
                    # The metrics follow the stream between transactions and at the tick, not per event (a
                    # single-row transaction is four events): inside a long one they are at most 10 ms old.
                    self._note(pe, unnoted)
                    unnoted = 0
                    if idle is not None and holding() and not has_pending():
                        idle(server())
                    if heartbeat is not None and heartbeat.due():
                        # Between transactions the restart position already points past the last event.
                        heartbeat.emit(self.boundary_offset())
                        self._stats.heartbeats_sent = heartbeat.sent
                # Every few milliseconds, not per event nor per transaction: it is several calls. An idle stream is
                # not left uncommitted: the server's heartbeats (at most IDLE_WAKE_S apart) come through here too.
                now = time.monotonic()
                if now >= next_housekeeping:
                    if unnoted:
                        self._note(pe, unnoted)
                        unnoted = 0
                    self._housekeeping()
                    next_housekeeping = now + 0.01
                    if self._token.requested:  # at the tick, not per event: a stop waits 10 ms at most
                        return False
                if not state.in_tx and gate is not None and gate.pause_requested:
                    return False
                del pe  # not kept alive (with its row bytes) while the reader reads the next event
            return True
        finally:
            if unnoted:  # events of a transaction the connection was lost in: they were read
                self._attempts = 0
                self._stats.binlog_events_seen += unnoted

    def _note(self, pe: PositionedEvent, events: int) -> None:
        """The metrics' view of `events` events read, `pe` the last of them."""
        stats = self._stats
        self._attempts = 0
        if not stats.connected:
            stats.set_connected(True)
        note_event(stats, pe, time.time_ns() // 1_000_000, events)
        if type(pe.event) in COMMIT_EVENTS:
            stats.committed_transactions += 1
            if self.state.current_gtids is not None:
                stats.gtid_set = self.state.restart_gtids or ""

    def boundary_offset(self) -> SourceOffset:
        """The offset between transactions: the next event, nothing to skip."""
        return self.state.offset(rows=0, with_tx=False).with_(event=0)

    def _park_if_asked(self) -> None:
        gate = self._gate
        if gate is None or not gate.pause_requested or self._token.requested or self.state.in_tx:
            return
        at = self.boundary_offset()
        log.info("streaming paused at %s:%s", at.file, at.pos)
        self._stats.set_connected(False)
        gate.park(at, self._token)
        log.info("streaming resumes at %s:%s", self.state.file, self.state.restart_pos)
