"""`snapshot.locking.mode`: which lock the snapshot takes, for how long, and what it falls back to.

One `LockStrategy` per mode (a row of `STRATEGIES`), and one `SnapshotLocks` per snapshot run that
executes it on the snapshot connection and remembers what it holds.

Fallback chain when the global lock is refused (Debezium's `BinlogSnapshotChangeEventSource`):
  1. the global lock (`FLUSH TABLES WITH READ LOCK`, or Percona's `LOCK TABLES FOR BACKUP`);
  2. `FLUSH TABLES t1,... WITH READ LOCK` on the captured tables (Debezium's table-lock fallback, e.g.
     when FTWRL times out behind a long query on another table, or a managed server forbids it);
  3. beyond Debezium: `LOCK TABLES t1 READ, ...`, which needs only the LOCK TABLES privilege. Both
     MariaDB and MySQL require RELOAD (or MySQL's FLUSH_TABLES) for any `FLUSH TABLES`, so a user
     without RELOAD would otherwise have no consistent snapshot at all.
Table locks (2 and 3) cannot be released before the data is read: `UNLOCK TABLES` ends the
transaction, and nothing else keeps the captured tables still, so they are held to the end.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Callable, Sequence

import pymysql

from connector.config.modes import SnapshotLockingMode
from connector.errors import ServerSetupError
from schema_history.model import TableId

log = logging.getLogger(__name__)

FTWRL = "FLUSH TABLES WITH READ LOCK"
BACKUP_LOCK = "LOCK TABLES FOR BACKUP"


@dataclass(frozen=True)
class LockStrategy:
    mode: SnapshotLockingMode
    global_lock_sql: str | None  # None: no lock at all (mode none)
    # FTWRL resets the session's transaction isolation level; the backup lock does not.
    resets_isolation: bool
    # Release the global lock once positions and schemas are read (else hold it until the data is read).
    minimal: bool
    # May fall back to table-level locks when the global lock is refused.
    table_locks: bool

    @property
    def locking(self) -> bool:
        return self.global_lock_sql is not None


M = SnapshotLockingMode
STRATEGIES: dict[SnapshotLockingMode, LockStrategy] = {
    M.MINIMAL: LockStrategy(M.MINIMAL, FTWRL, resets_isolation=True, minimal=True, table_locks=True),
    M.EXTENDED: LockStrategy(M.EXTENDED, FTWRL, resets_isolation=True, minimal=False, table_locks=True),
    M.MINIMAL_PERCONA: LockStrategy(M.MINIMAL_PERCONA, BACKUP_LOCK, resets_isolation=False, minimal=True,
                                    table_locks=True),
    M.MINIMAL_PERCONA_NO_TABLE_LOCKS: LockStrategy(M.MINIMAL_PERCONA_NO_TABLE_LOCKS, BACKUP_LOCK,
                                                   resets_isolation=False, minimal=True, table_locks=False),
    M.NONE: LockStrategy(M.NONE, None, resets_isolation=False, minimal=True, table_locks=False),
}


def strategy_for(mode: SnapshotLockingMode) -> LockStrategy:
    try:
        return STRATEGIES[mode]
    except KeyError:
        raise ServerSetupError(f"snapshot.locking.mode={mode.value} is not supported; use one of "
                               f"{', '.join(m.value for m in STRATEGIES)}") from None


def _quoted(table_id: TableId) -> str:
    return "`" + table_id.database.replace("`", "``") + "`.`" + table_id.table.replace("`", "``") + "`"


# Per table-lock kind: the statement that takes it for a list of tables.
TABLE_LOCK_STATEMENTS: tuple[tuple[str, Callable[[Sequence[TableId]], str]], ...] = (
    ("FLUSH TABLES ... WITH READ LOCK", lambda ts: f"FLUSH TABLES {','.join(map(_quoted, ts))} WITH READ LOCK"),
    ("LOCK TABLES ... READ", lambda ts: "LOCK TABLES " + ", ".join(f"{_quoted(t)} READ" for t in ts)),
)


class SnapshotLocks:
    """Takes and releases the snapshot's locks on one connection; `on_change(holding)` reports them."""

    def __init__(self, strategy: LockStrategy, cursor: pymysql.cursors.Cursor,
                 on_change: Callable[[bool], None] = lambda holding: None) -> None:
        self.strategy = strategy
        self._cur = cursor
        self._on_change = on_change
        self.global_locked = False
        self.tables_locked = False
        self.global_refusal: str | None = None
        self._since = 0.0

    @property
    def holding(self) -> bool:
        return self.global_locked or self.tables_locked

    def acquire_global(self) -> bool:
        sql = self.strategy.global_lock_sql
        if sql is None:
            return False
        log.info("Snapshot step 2 - Flush and obtain global read lock to prevent writes to database (%s)", sql)
        try:
            self._cur.execute(sql)
        except (pymysql.err.OperationalError, pymysql.err.ProgrammingError, pymysql.err.InternalError) as exc:
            self.global_refusal = f"{sql}: {exc.args[-1]}"
            log.info("Unable to flush and acquire global read lock (%s), will use table read locks after "
                     "reading table names", exc.args[-1])
            return False
        self.global_locked = True
        self._acquired()
        return True

    def needs_table_locks(self) -> bool:
        """Locking was asked for but the global lock was refused."""
        if not self.strategy.locking or self.global_locked:
            return False
        if not self.strategy.table_locks:
            raise ServerSetupError(
                f"the global read lock was refused ({self.global_refusal}) and snapshot.locking.mode="
                f"{self.strategy.mode.value} forbids table locks: grant RELOAD to the connector user, use "
                f"snapshot.locking.mode=minimal, or snapshot.locking.mode=none if nothing writes during the snapshot")
        return True

    def lock_tables(self, tables: Sequence[TableId]) -> None:
        """Table-level read locks on `tables`, trying each kind of table lock in turn."""
        if not tables:
            self.tables_locked = True
            self._acquired()
            return
        refusals = [self.global_refusal or "global lock refused"]
        for name, statement in TABLE_LOCK_STATEMENTS:
            log.info("Flush and obtain read lock for %d table(s) with %s (preventing writes)", len(tables), name)
            try:
                self._cur.execute(statement(tables))
            except (pymysql.err.OperationalError, pymysql.err.ProgrammingError, pymysql.err.InternalError) as exc:
                refusals.append(f"{name}: {exc.args[-1]}")
                continue
            self.tables_locked = True
            self._acquired()
            log.warning("Tables were locked explicitly; to keep the snapshot consistent the locks are held until "
                        "all tables are read, so writes to the %d captured table(s) wait until then", len(tables))
            return
        raise ServerSetupError(
            "no lock could be taken for a consistent snapshot (" + "; ".join(refusals) + "): grant RELOAD (global "
            "lock) or LOCK TABLES (table locks) to the connector user, or set snapshot.locking.mode=none if "
            "nothing writes to the captured tables during the snapshot")

    def release_after_schema(self) -> None:
        if self.global_locked and self.strategy.minimal:
            self._unlock("global read lock")
        elif self.tables_locked:
            log.info("Table locks are kept until the data is read (UNLOCK TABLES would end the snapshot transaction)")

    def release_after_data(self) -> None:
        if self.global_locked:
            self._unlock("global read lock")
        if self.tables_locked:
            self._unlock("table read locks")

    def _acquired(self) -> None:
        self._since = time.monotonic()
        self._on_change(True)

    def _unlock(self, what: str) -> None:
        log.info("Releasing %s to enable MySQL writes", what)
        self._cur.execute("UNLOCK TABLES")
        self.global_locked = self.tables_locked = False
        self._on_change(False)
        log.info("Writes to MySQL tables prevented for a total of %.3f s", time.monotonic() - self._since)
