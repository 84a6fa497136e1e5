"""Records held back for batching (connector/dispatch/sender.py `hold_groups`) go to Kafka when the reader is about
to wait for the server, between transactions: a quiet database must not leave its last changes unsent until the
next housekeeping or server heartbeat."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterator, Sequence

from connector.daemon import table_schema_builder
from connector.dispatch.dispatcher import Dispatcher
from connector.config.table_filter import TableFilter
from connector.kafka.writer import OutRecord
from connector.offsets.position import SourceOffset
from connector.offsets.tracker import OffsetTracker
from connector.schema.tracker import SchemaTracker
from connector.shutdown import ShutdownToken
from connector.streaming.handler import StreamingHandler
from connector.streaming.loop import StreamingLoop
from connector.streaming.source import streaming_state
from connector.binlog.reader import PositionedEvent
from schema_history.stores.memory import MemoryHistoryStore
from tests.unit.streaming.scripted import CLOCK_NS, Binlog, settings


@dataclass
class GroupSink:
    """The Kafka writer's two ways in; what it got, in order, with the binlog event being read at the time."""

    at: Callable[[], int]
    sent: list[tuple[int, int]] = field(default_factory=list)  # (event index, records)

    def send(self, record: OutRecord, on_ack: Callable[[], None]) -> None:
        self.sent.append((self.at(), 1))
        on_ack()

    def send_group(self, records: Sequence[OutRecord], on_ack: Callable[[], None]) -> None:
        self.sent.append((self.at(), len(records)))
        on_ack()


@dataclass
class ScriptedReader:
    """A reader over scripted events; the server has nothing more after `quiet_after` events (then it would wait)."""

    events_list: list[PositionedEvent]
    quiet_after: int
    token: ShutdownToken
    read: int = 0
    file: str = "mysql-bin.000001"
    next_pos: int = 4

    def open(self) -> None:
        pass

    def close(self) -> None:
        pass

    def events(self) -> Iterator[PositionedEvent]:
        for pe in self.events_list:
            self.read += 1
            yield pe
        self.token.request()

    def has_pending(self) -> bool:
        return self.read < self.quiet_after

    def socket(self) -> object:
        return None


def test_held_rows_go_when_the_server_has_nothing_more() -> None:
    s = settings()
    table_filter = TableFilter(s.filters)
    schema = SchemaTracker(s, table_filter, MemoryHistoryStore())
    token = ShutdownToken()
    binlog = Binlog().ddl("CREATE TABLE customers (id INT PRIMARY KEY, name VARCHAR(20))")
    for i in range(3):  # three single-row transactions, the way OLTP writes them
        binlog.begin().insert("customers", [i, f"n{i}"]).commit()
    reader = ScriptedReader(binlog.events, quiet_after=len(binlog.events), token=token)
    sink = GroupSink(at=lambda: reader.read)
    dispatcher = Dispatcher(s, schema, table_schema_builder(s), sink, OffsetTracker(), table_filter,
                            clock_ns=lambda: CLOCK_NS)
    handler = StreamingHandler(streaming_state(SourceOffset(file="mysql-bin.000001", pos=4), None), dispatcher,
                               use_gtids=False, is_mariadb=False, provide_transaction_metadata=False,
                               rows_of=lambda ev: ev.scripted_rows)
    StreamingLoop(handler, lambda: reader, token, idle=dispatcher.idle, holding=dispatcher.holding).run()
    ddl = sink.sent[0]
    assert ddl == (1, 1)
    # The three inserts were held while the server had more to send, and sent together as the reader read the
    # last COMMIT (before it would wait), not at the end of the stream.
    assert sink.sent[1:] == [(len(binlog.events), 3)]
    assert not dispatcher.holding()
