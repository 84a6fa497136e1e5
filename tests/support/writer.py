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
        self._seed, self._pause_s, self._session_setup = seed, pause_s, session_setup

    def transaction(self, cur: Any, rng: random.Random) -> None:
        raise NotImplementedError

    def run(self) -> None:
        try:
            rng = random.Random(self._seed)
            conn = self.server.connect(self.database)
            with conn.cursor() as cur:
                for statement in self._session_setup:
                    cur.execute(statement)
                while not self.stop_requested.is_set():
                    self.transaction(cur, rng)
                    self.committed += 1
                    time.sleep(self._pause_s)
            conn.close()
        except BaseException as exc:  # surfaced by the test
            self.error = exc
