"""connector/snapshot_wiring.py's run_continuing_remainder: a lost database connection while the rest of an
interrupted initial snapshot is read ends that active run, not the process: the next run starts once the database
answers, within errors.max.retries, and a stop asked for while waiting ends with 0."""
from __future__ import annotations

import pytest

from connector.errors import SourceConnectionError
from connector.snapshot_wiring import run_continuing_remainder
from snapshot.remainder import RemainderInterrupted


class Runs:
    """Active runs whose first `interrupted` end with RemainderInterrupted; a database that answers after `down`
    attempts. Records the order of what happened."""

    def __init__(self, interrupted: int, down: int) -> None:
        self.interrupted, self.down = interrupted, down
        self.seen: list[str] = []
        self.waits: list[float] = []

    def run(self) -> int:
        self.seen.append("run")
        if self.interrupted:
            self.interrupted -= 1
            raise RemainderInterrupted("connection lost while reading the rest of the interrupted initial snapshot")
        return 0

    def database_answers(self) -> None:
        self.seen.append("ping")
        if self.down:
            self.down -= 1
            raise SourceConnectionError("cannot connect to db:3306: Connection refused")

    def stopped(self, timeout: float) -> bool:
        self.waits.append(timeout)
        return False


def test_the_next_run_starts_once_the_database_answers() -> None:
    runs = Runs(interrupted=2, down=2)
    assert run_continuing_remainder(runs.run, runs.database_answers, runs.stopped, max_retries=-1) == 0
    assert runs.seen == ["run", "ping", "ping", "ping", "run", "ping", "run"]
    assert runs.waits == [1.0, 2.0, 4.0, 1.0]  # the streaming loop's backoff, from the start after each run


def test_retries_are_bounded_by_errors_max_retries() -> None:
    runs = Runs(interrupted=1, down=5)
    with pytest.raises(SourceConnectionError, match="Connection refused"):
        run_continuing_remainder(runs.run, runs.database_answers, runs.stopped, max_retries=2)
    assert runs.seen == ["run", "ping", "ping"]


def test_no_retry_when_errors_max_retries_is_0() -> None:
    runs = Runs(interrupted=1, down=0)
    with pytest.raises(RemainderInterrupted):
        run_continuing_remainder(runs.run, runs.database_answers, runs.stopped, max_retries=0)
    assert runs.seen == ["run"]


def test_a_stop_while_waiting_ends_cleanly() -> None:
    runs = Runs(interrupted=1, down=0)
    assert run_continuing_remainder(runs.run, runs.database_answers, lambda timeout: True, max_retries=-1) == 0
    assert runs.seen == ["run"]
