"""The fault tests' workload: two tables changed by multi-table transactions, with per-key histories.

Every change stamps the row's `ver` column with a value of one counter, so versions increase in commit
order across the whole database (one writer connection commits everything). The writer keeps, per key,
the list of changes it committed (`KeyHistory`); a consumer can then tell from a record alone which change
it is, and whether the changes of a key arrive in commit order. Ids are never reused, so a key's history
is one life: insert, updates, at most one delete. An occasional `ALTER TABLE ... ADD COLUMN` gives the
schema history something to keep in order.
"""
from __future__ import annotations

import random
import threading
from dataclasses import dataclass, field
from typing import Any

from tests.support.writer import TransactionWriter

TABLES = ("acct", "ledger")
# The signal table (not captured): a restart writes its watermarks there to read the rest of an interrupted
# snapshot beside streaming (snapshot/remainder.py).
SIGNAL_TABLE = "dbz_signal"
DDL = (
    "CREATE TABLE acct (id INT PRIMARY KEY, ver BIGINT NOT NULL, val INT NOT NULL)",
    "CREATE TABLE ledger (id INT PRIMARY KEY, ver BIGINT NOT NULL, acct INT NOT NULL, amount INT NOT NULL)",
    f"CREATE TABLE {SIGNAL_TABLE} (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048))",
)


@dataclass(frozen=True)
class Change:
    """One committed change of a key: op is c, u or d; `ver` is the row's version after it (for d: before)."""
    op: str
    ver: int


@dataclass
class KeyHistory:
    changes: list[Change] = field(default_factory=list)

    def index_of(self, op: str, ver: int) -> int | None:
        """Which change a record with this op and version shows (r: the change that produced `ver`)."""
        want_delete = op == "d"
        for i, ch in enumerate(self.changes):
            if ch.ver == ver and (ch.op == "d") == want_delete:
                return i
        return None


def create_tables(server: Any, database: str, preload: int, seed: int) -> dict[tuple[str, int], KeyHistory]:
    """The two tables with `preload` rows each (versions 1..2*preload); their histories."""
    histories: dict[tuple[str, int], KeyHistory] = {}
    server.run_sql(";\n".join(DDL) + ";", database=database)
    rng = random.Random(seed)
    ver = 0
    for table in TABLES:
        for start in range(1, preload + 1, 2000):
            rows = []
            for i in range(start, min(start + 2000, preload + 1)):
                ver += 1
                rows.append(f"({i}, {ver}, {rng.randrange(1000)})" if table == "acct"
                            else f"({i}, {ver}, {rng.randrange(1, preload + 1)}, {rng.randrange(1000)})")
                histories[(table, i)] = KeyHistory([Change("c", ver)])
            server.run_sql(f"INSERT INTO {table} VALUES {','.join(rows)};", database=database)
    return histories


class FaultWriter(TransactionWriter):
    """Commits transactions of inserts, updates and deletes over both tables; every `alter_every`
    transactions (0: never) an `ALTER TABLE acct ADD COLUMN cN`. `running` pauses it between transactions
    (a database restart must not cut a COMMIT whose outcome the writer could not know)."""

    def __init__(self, server: Any, database: str, histories: dict[tuple[str, int], KeyHistory], *,
                 seed: int, pause_s: float = 0.005, alter_every: int = 0, max_alters: int = 4) -> None:
        super().__init__(server, database, name="fault-writer", seed=seed, pause_s=pause_s)
        self.histories = histories
        self.version = max((h.changes[-1].ver for h in histories.values()), default=0)
        self.alters: list[tuple[int, str]] = []  # (writer version when it ran, statement)
        self.running = threading.Event()
        self.running.set()
        self.idle = threading.Event()  # set while paused between transactions
        self.allow_alters = threading.Event()  # cleared: no ALTER for now (e.g. not during the snapshot)
        self.allow_alters.set()
        self._alter_every, self._max_alters = alter_every, max_alters
        self._next_id = {t: 1 + max((i for (tt, i) in histories if tt == t), default=0) for t in TABLES}
        self._live = {t: sorted(i for (tt, i), h in histories.items() if tt == t and h.changes[-1].op != "d")
                      for t in TABLES}

    def pause(self, timeout: float = 30.0) -> None:
        self.running.clear()
        if self.is_alive() and not self.idle.wait(timeout):
            raise TimeoutError("the writer did not pause within its transaction")

    def resume(self, reconnect: bool = False) -> None:
        if reconnect:
            self.reconnect_requested.set()
        self.idle.clear()
        self.running.set()

    def transaction(self, cur: Any, rng: random.Random) -> bool | None:
        if not self.running.is_set():
            self.idle.set()
            self.running.wait(0.05)
            return False  # back to the loop: it reconnects if asked to, then comes here again
        if self._alter_every and self.committed % self._alter_every == self._alter_every - 1 \
                and len(self.alters) < self._max_alters and self.allow_alters.is_set():
            column = f"c{len(self.alters) + 1}"
            ddl = f"ALTER TABLE acct ADD COLUMN {column} INT NOT NULL DEFAULT {len(self.alters) + 1}"
            cur.execute(ddl)
            self.alters.append((self.version, ddl))
            return None
        pending: list[tuple[tuple[str, int], Change]] = []
        live = {t: list(ids) for t, ids in self._live.items()}
        next_id = dict(self._next_id)
        cur.execute("BEGIN")
        for _ in range(rng.randint(1, 4)):
            table = rng.choice(TABLES)
            kind = rng.choices(("c", "u", "d"), weights=(3, 5, 1))[0] if live[table] else "c"
            self.version += 1
            ver = self.version
            if kind == "c":
                key = next_id[table]
                next_id[table] += 1
                if table == "acct":
                    cur.execute("INSERT INTO acct (id, ver, val) VALUES (%s, %s, %s)", (key, ver, rng.randrange(1000)))
                else:
                    cur.execute("INSERT INTO ledger VALUES (%s, %s, %s, %s)", (key, ver, rng.randrange(1, 50),
                                                                           rng.randrange(1000)))
                live[table].append(key)
            elif kind == "u":
                key = rng.choice(live[table])
                cur.execute(f"UPDATE {table} SET ver = %s, {'val' if table == 'acct' else 'amount'} = %s "
                            f"WHERE id = %s", (ver, rng.randrange(1000), key))
            else:
                key = live[table].pop(rng.randrange(len(live[table])))
                ver = self._last_version((table, key), pending)
                cur.execute(f"DELETE FROM {table} WHERE id = %s", (key,))
            pending.append(((table, key), Change(kind, ver)))
        cur.execute("COMMIT")
        # recorded only once committed: a failed transaction changed nothing
        for key, change in pending:
            self.histories.setdefault(key, KeyHistory()).changes.append(change)
        self._live, self._next_id = live, next_id
        return None

    def _last_version(self, key: tuple[str, int], pending: list[tuple[tuple[str, int], Change]]) -> int:
        for k, change in reversed(pending):
            if k == key:
                return change.ver
        return self.histories[key].changes[-1].ver
