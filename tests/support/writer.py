"""A thread that commits transactions against a test server until told to stop, so that a test can run the
connector while the source changes. Subclasses say what one transaction does."""
from __future__ import annotations

import random
import threading
import time
from typing import Any


class TransactionWriter(threading.Thread):
    """Runs `transaction(cur, rng)` in a loop on its own connection, `pause_s` apart, counting `committed`;
    an exception ends the thread and is kept in `error` for the test to surface."""

    def __init__(self, server: Any, database: str, *, name: str, seed: int, pause_s: float,
                 session_setup: tuple[str, ...] = ()) -> None:
        super().__init__(name=name, daemon=True)
        self.server, self.database = server, database
        self.stop_requested = threading.Event()
        self.committed = 0
        self.error: BaseException | None = None
        # set by a test that restarted the server while the writer was paused between transactions
        self.reconnect_requested = threading.Event()
        self._seed, self._pause_s, self._session_setup = seed, pause_s, session_setup

    def transaction(self, cur: Any, rng: random.Random) -> bool | None:
        """One transaction; returning False says nothing was committed (not counted)."""
        raise NotImplementedError

    def _session(self) -> tuple[Any, Any]:
        conn = self.server.connect(self.database)
        cur = conn.cursor()
        for statement in self._session_setup:
            cur.execute(statement)
        return conn, cur

    def finish(self) -> None:
        """Stop after the current transaction, wait, and fail the test with the writer's own error, if any."""
        self.stop_requested.set()
        self.join()
        assert self.error is None, self.error

    def run(self) -> None:
        try:
            rng = random.Random(self._seed)
            conn, cur = self._session()
            while not self.stop_requested.is_set():
                if self.reconnect_requested.is_set():
                    conn.close()
                    conn, cur = self._session()
                    self.reconnect_requested.clear()
                if self.transaction(cur, rng) is not False:
                    self.committed += 1
                time.sleep(self._pause_s)
            conn.close()
        except BaseException as exc:  # surfaced by the test
            self.error = exc


class CounterWriter(TransactionWriter):
    """Per transaction: `n = n + 1` on two random ids of `table`, a delete of a random id 30 % of the time, an insert
    of a new id 20 % of the time. Deleted ids never come back and `n` only grows, so a record that goes back in
    time shows. `update_set` and `insert_values` adapt it to the table's other columns."""

    def __init__(self, server: Any, database: str, *, table: str, first_new_id: int, name: str, seed: int,
                 update_set: str = "n = n + 1", insert_values: str = "(%s, 0)") -> None:
        super().__init__(server, database, name=name, seed=seed, pause_s=0.005)
        self._next_id = first_new_id
        # not _delete: threading.Thread has a method of that name, called when the thread ends
        self._update_sql = f"UPDATE {table} SET {update_set} WHERE id = %s"
        self._delete_sql = f"DELETE FROM {table} WHERE id = %s"
        self._insert_sql = f"INSERT INTO {table} VALUES {insert_values}"

    def transaction(self, cur: Any, rng: random.Random) -> None:
        cur.execute("BEGIN")
        for i in rng.sample(range(1, self._next_id), 2):
            cur.execute(self._update_sql, (i,))
        if rng.random() < 0.3:
            cur.execute(self._delete_sql, (rng.randrange(1, self._next_id),))
        if rng.random() < 0.2:
            cur.execute(self._insert_sql, (self._next_id,))
            self._next_id += 1
        cur.execute("COMMIT")
