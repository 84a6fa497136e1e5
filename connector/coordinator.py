"""Runs the change event sources in order, as Debezium's `ChangeEventSourceCoordinator`.

1. Decide how to start (snapshot/start_decision.py) from the stored offset, the schema history, whether the
   stored position can still be read, and `snapshot.mode`; carry the decision out: recover the history and
   stream, rebuild the history, resume or take the initial snapshot, or refuse with the reason. Resuming an
   interrupted snapshot is streaming from its position with the rest read beside it (snapshot/remainder.py).
2. Stream from the resulting offset until shutdown (`snapshot.mode` permitting).
Beside streaming it offers two seams for work on other threads: `run_beside_streaming` (a task on a thread of
its own) and `blocking_snapshot` (pause streaming between transactions, run a task, resume at the same
position). Signals do not need them: incremental and blocking snapshots run on the streaming thread itself
(connector/signals/processor.py), the blocking one at the event after its signal, as in Debezium.
"""

from __future__ import annotations

import logging
import threading
from typing import Any, Callable, Mapping, Protocol

from connector.offsets.position import BLOCKING, SourceOffset
from connector.errors import SchemaError, ServerSetupError
from connector.offsets.parts import IncrementalSnapshotSlot
from connector.streaming.pause import PauseGate, StopSignal
from snapshot.incremental.context import IncrementalContext
from snapshot.modes import SnapshotPolicy
from snapshot.new_tables import CapturedFilters
from snapshot.remainder import resumed_offset
from snapshot.resume import ResumeInvalid, ResumePoint, SnapshotResume
from snapshot.start_decision import Action, StartDecision, StartInputs, decide

__all__ = ["Coordinator", "NewTableSnapshot", "SnapshotRemainder", "SnapshotSource", "StartEnvironment", "StreamingSource"]

log = logging.getLogger(__name__)

# The parts a stored offset is read back into (besides position, snapshot marker and transaction).
STORED_PARTS = (IncrementalSnapshotSlot.load, SnapshotResume.load)


class StartEnvironment(Protocol):
    """What the start decision reads from the server and the schema history, and the history work it needs."""

    def position_purged(self, offset: SourceOffset) -> str | None:
        """Why `offset` cannot be read again (purged binlog, lost GTIDs), or None."""

    def history_exists(self) -> bool: ...

    def recover_history(self, offset: SourceOffset) -> None:
        """The schema as of `offset`; a SchemaError when the history cannot give it."""

    def reset_history(self) -> None: ...

    def refuse_recovery_after_ddl(self, offset: SourceOffset) -> None:
        """A ServerSetupError when DDL ran after `offset`, so the current tables are not its schema."""

    def oldest_binlog(self) -> str: ...


class SnapshotSource(Protocol):
    """The initial snapshot; returns the offset streaming starts from."""

    def snapshot(self, *, with_data: bool = True, recovery_offset: SourceOffset | None = None,
                 after_interrupted: bool = False) -> SourceOffset:
        """`after_interrupted`: an earlier attempt's rows are in the topics (snapshot/ghost_rows.py)."""
        ...

    def skipped(self) -> None:
        """No snapshot at this start (Debezium's snapshotter wants neither schema nor data): it says so."""


class SnapshotRemainder(Protocol):
    """What an interrupted initial snapshot still has to read, as an incremental snapshot (snapshot/remainder.py);
    ResumeInvalid when it cannot be read that way."""

    def __call__(self, point: ResumePoint) -> IncrementalContext: ...


class NewTableSnapshot(Protocol):
    """`snapshot.new.tables=incremental` (snapshot/new_tables.py): what the streaming start offset records and
    which newly matched tables it adds to the incremental snapshot."""

    def mark(self, start: SourceOffset) -> SourceOffset: ...

    def apply(self, previous: SourceOffset, start: SourceOffset) -> SourceOffset: ...


class StreamingSource(Protocol):
    def stream(self, offset: SourceOffset, gate: PauseGate) -> None: ...


class Coordinator:
    def __init__(self, policy: SnapshotPolicy, stored: Mapping[str, Any] | None, env: StartEnvironment,
                 snapshots: SnapshotSource, streaming: StreamingSource, token: StopSignal, *,
                 resume_enabled: bool = True, remainder: SnapshotRemainder | None = None,
                 after_snapshot: Callable[[], None] = lambda: None,
                 new_tables: NewTableSnapshot | None = None, streaming_delay_ms: int = 0,
                 on_streaming_delay: Callable[[], None] = lambda: None) -> None:
        self.policy = policy
        self._stored = stored
        self._env = env
        self._snapshots = snapshots
        self._streaming = streaming
        self._token = token
        self._resume_enabled = resume_enabled
        self._remainder = remainder  # None: no watermarks can be written, an interrupted snapshot starts over
        self._after_snapshot = after_snapshot
        self._new_tables = new_tables
        self._streaming_delay_ms = streaming_delay_ms  # streaming.delay.ms
        self._on_streaming_delay = on_streaming_delay
        self._snapshot_taken = False
        self.gate = PauseGate()
        self._side_tasks: list[tuple[threading.Thread, list[BaseException]]] = []

    # ------------------------------------------------------------ the main sequence
    def run(self) -> None:
        offset = self.start()
        self._after_snapshot()  # commit the snapshot's offsets before streaming starts
        if not self.policy.stream:
            log.info("snapshot.mode=%s: snapshot done, not streaming", self.policy.mode.value)
            return
        if self._snapshot_taken and self._delay_streaming():
            return
        if self._token.requested:
            return
        self._streaming.stream(offset, self.gate)

    def _delay_streaming(self) -> bool:
        """streaming.delay.ms: as Debezium's ChangeEventSourceCoordinator, wait only after a snapshot that was
        taken (not skipped), and wake on a stop request; True when the stop came first."""
        if self._streaming_delay_ms <= 0:
            return False
        log.info("The connector will wait for %ds before initiating streaming", self._streaming_delay_ms // 1000)
        self._on_streaming_delay()
        return self._token.wait(self._streaming_delay_ms / 1000)

    def start(self) -> SourceOffset:
        """Carry out the start decision; the offset streaming starts from."""
        # The captured filters only while snapshot.new.tables is on: turned off, the key is no longer carried.
        loaders = STORED_PARTS + ((CapturedFilters.load,) if self._new_tables is not None else ())
        previous = SourceOffset.from_map(self._stored, loaders) if self._stored else None
        if previous is not None and previous.snapshot == BLOCKING:
            log.warning("a blocking snapshot was interrupted at %s:%d; as in Debezium it is not resumed, streaming "
                        "continues from its position: send its execute-snapshot signal again", previous.file,
                        previous.pos)
        decision = decide(self.policy, self.inputs(previous))
        log.info("start: %s (%s)", decision.action.value, decision.rule)
        offset = self._carry_out(decision, previous)
        if self._new_tables is None:
            return offset
        # Only a start that streams on from the stored offset, with its schema, has tables the previous run
        # did not capture and no snapshot reads; any other start records the filters it captures with.
        if previous is not None and decision.action in (Action.STREAM, Action.RECOVER_SCHEMA):
            return self._new_tables.apply(previous, offset)
        return self._new_tables.mark(offset)

    def inputs(self, previous: SourceOffset | None) -> StartInputs:
        if previous is None:
            return StartInputs()
        completed = not previous.snapshot_in_progress
        # Reading the history store can be costly (a Kafka topic): only when the decision depends on it.
        lost_history = completed and self.policy.on_schema_error and not self._env.history_exists()
        return StartInputs(stored=True, in_progress=not completed,
                           resumable=self._resume_enabled and previous.part(SnapshotResume) is not None,
                           watermarks=self._remainder is not None, history_exists=not lost_history,
                           purged=self._env.position_purged(previous))

    def _carry_out(self, decision: StartDecision, previous: SourceOffset | None) -> SourceOffset:
        action = decision.action
        if action is Action.REFUSE:
            raise ServerSetupError(decision.message)
        if decision.message:
            (log.info if action in (Action.RECOVER_SCHEMA, Action.STREAM_FROM_OLDEST) else log.warning)(
                "%s", decision.message)
        if action in (Action.STREAM, Action.STREAM_FROM_OLDEST):
            self._snapshots.skipped()  # as Debezium's snapshot source when it takes neither schema nor data
        if action is Action.STREAM_FROM_OLDEST:
            self._env.reset_history()
            return SourceOffset(file=self._env.oldest_binlog(), pos=4)
        if action in (Action.SNAPSHOT, Action.RECOVER_SCHEMA):
            self._snapshot_taken = True
        if action is Action.SNAPSHOT:
            # taken again rather than resumed: the earlier attempts' rows are in the topics (snapshot/ghost_rows.py)
            interrupted = previous is not None and previous.snapshot_in_progress
            return self._snapshots.snapshot(with_data=decision.with_data, after_interrupted=interrupted)
        assert previous is not None
        if action is Action.STREAM:
            log.info("resuming from stored offset %s", self._stored)
            self._env.recover_history(previous)
            return previous
        if action is Action.RECOVER_SCHEMA:
            self._env.refuse_recovery_after_ddl(previous)
            self._snapshots.snapshot(recovery_offset=previous)
            return previous
        assert action is Action.RESUME_SNAPSHOT and decision.fallback is not None
        resumed = self._resume_snapshot(previous)
        if resumed is not None:
            return resumed
        log.info("the previous snapshot did not complete; starting it again")
        return self._carry_out(decision.fallback, previous)

    def _resume_snapshot(self, previous: SourceOffset) -> SourceOffset | None:
        """Stream from the interrupted snapshot's position with the rest of it as an incremental snapshot
        (snapshot/remainder.py), or None to start over. The history recorded at that position is kept: no second
        CREATE, and DDL since then is streamed."""
        part = previous.part(SnapshotResume)
        assert part is not None and self._remainder is not None
        try:
            self._env.recover_history(previous)
            context = self._remainder(part.point())
        except (ServerSetupError, SchemaError, ResumeInvalid) as exc:
            log.warning("the interrupted snapshot cannot be resumed (%s); as Debezium, it is taken again from the "
                        "start: consumers keep rows the first attempt sent that were deleted meanwhile", exc)
            return None
        return resumed_offset(previous.with_parts(), context)

    # ------------------------------------------------------------ snapshots while streaming
    def blocking_snapshot(self, task: Callable[[SourceOffset], None], timeout_s: float = 60.0) -> SourceOffset:
        """Pause streaming at its next transaction boundary, run `task` with that position, resume there.

        Called from a thread other than the streaming one. A TimeoutError when streaming did not pause in time
        (a long transaction): streaming is left running."""
        self.gate.request()
        at = self.gate.wait_paused(timeout_s)
        if at is None:
            self.gate.resume()
            raise TimeoutError(f"streaming did not reach a transaction boundary within {timeout_s:g} s")
        try:
            task(at)
        finally:
            self.gate.resume()
        return at

    def run_beside_streaming(self, name: str, task: Callable[[], None]) -> threading.Thread:
        """Run `task` on a named thread owned by the coordinator; its failure surfaces in `check_side_tasks`."""
        errors: list[BaseException] = []

        def target() -> None:
            try:
                task()
            except BaseException as exc:  # handed to the main loop by check_side_tasks()
                errors.append(exc)

        thread = threading.Thread(target=target, name=name, daemon=True)
        self._side_tasks.append((thread, errors))
        thread.start()
        return thread

    def check_side_tasks(self) -> None:
        """Re-raise the first failure of a task run beside streaming; forget finished ones."""
        running = []
        for thread, errors in self._side_tasks:
            if errors:
                raise errors[0]
            if thread.is_alive():
                running.append((thread, errors))
        self._side_tasks = running
