"""An HA standby's preparation (issue 28, item 3): what a start needs that does not depend on holding the lease, done
while the standby waits, so that its first record comes soon after a takeover rather than 1.5-3.7 s later (at load:
the Kafka producer, the database connection and its checks, reading the offsets and the schema history, the DDL
parser's first use).

Nothing prepared is trusted at the takeover (connector/daemon.py `_run_active`): the producer's init_transactions
fences the former active instance first, then the offsets are read again (it may have committed since) and the
schema history is recovered again at them (it may have recorded DDL since); the history store kept what it read
(schema_history/stores/kafka.py), so that second reading fetches only the records appended meanwhile.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Callable

import pymysql

from connector.binlog import connection as dbconn
from connector.config.settings import Settings
from connector.config.table_filter import TableFilter
from connector.kafka.writer import KafkaWriter
from connector.offsets.store import OffsetStore
from connector.schema.tracker import SchemaTracker, make_history_store
from schema_history.stores.base import SchemaHistoryStore

__all__ = ["StandbyStart", "prepare_standby"]

log = logging.getLogger(__name__)


@dataclass
class StandbyStart:
    """What a standby made ready, for its first active run."""

    writer: KafkaWriter  # not initialised: init_transactions is the fence, at the takeover
    ctl: pymysql.connections.Connection
    info: dbconn.ServerInfo
    offsets: OffsetStore  # through `writer`; its topic checked once
    history: SchemaHistoryStore  # keeps what it read (a Kafka store): the takeover's recovery reads what is new

    def close(self) -> None:
        """Never taken over (stopped while waiting): give back the connection, the producer and the stores."""
        for close in (self.ctl.close, self.offsets.close, self.history.close,
                      lambda: self.writer.close(timeout_s=1.0)):
            try:
                close()
            except Exception as exc:  # closing only: a failure to close changes nothing for the caller
                log.debug("HA standby: closing what it prepared: %s", exc)


def prepare_standby(settings: Settings, new_writer: Callable[[], KafkaWriter],
                    make_offsets: Callable[[KafkaWriter], OffsetStore],
                    connect: Callable[[], pymysql.connections.Connection],
                    check_server: Callable[[pymysql.connections.Connection], dbconn.ServerInfo],
                    ) -> StandbyStart | None:
    """The producer, the checked database connection, the offsets read once and the schema history recovered at
    them (a throwaway tracker: it reads the store and builds the DDL parser's tables). None when anything fails:
    the takeover then starts as a cold start does, and reports the failure where it is not a mere preparation."""
    writer: KafkaWriter | None = None
    ctl: pymysql.connections.Connection | None = None
    try:
        writer = new_writer()
        ctl = connect()
        info = check_server(ctl)
        offsets = make_offsets(writer)
        history = make_history_store(settings)
        stored = offsets.load()
        warm = SchemaTracker(settings, TableFilter(settings.filters), history)
        if stored is not None and warm.exists():
            warm.recover(stored)
        log.info("HA: standby %s is ready to take over (connected, offsets and schema history read)",
                 settings.ha.instance_id)
        return StandbyStart(writer, ctl, info, offsets, history)
    except Exception as exc:  # only a preparation: the takeover does all of it again and reports the failure
        log.warning("HA: standby %s could not prepare its start (%s); it starts cold when it takes over",
                    settings.ha.instance_id, exc)
        if ctl is not None:
            ctl.close()
        if writer is not None:
            writer.close(timeout_s=1.0)
        return None
