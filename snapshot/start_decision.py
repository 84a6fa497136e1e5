"""What the connector does at start, as a table: (stored offset, snapshot state, history, purge, mode) → action.

Debezium spreads this over `BinlogConnectorTask.start` (validateBinlogConfiguration, validateSchemaHistory,
`isBinlogAvailable`, resetOffset for `snapshot.on.data.error`) and the `Snapshotter`'s
`shouldSnapshotData/Schema(offsetExists, snapshotInProgress)` (snapshot/modes.py). Here the inputs are one
record and the rules one ordered table, first match wins; the coordinator carries the action out.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Enum
from typing import Callable

from snapshot.modes import SnapshotPolicy


class Action(Enum):
    STREAM = "stream from the stored offset"
    RECOVER_SCHEMA = "rebuild the schema history at the stored offset, then stream from it"
    RESUME_SNAPSHOT = "stream from the interrupted snapshot's position, reading its remainder in chunks"
    SNAPSHOT = "take a snapshot, then stream from its position"
    STREAM_FROM_OLDEST = "stream from the oldest binlog, without a snapshot"
    REFUSE = "refuse to start"


@dataclass(frozen=True)
class StartInputs:
    stored: bool = False          # an offset is stored (offsets_reset: it was, but is ignored)
    in_progress: bool = False     # the stored offset's snapshot did not complete
    resumable: bool = False       # it says where the interrupted snapshot got to, and snapshot.resume.enabled
    watermarks: bool = False      # a signal table the connector may write (the resume reads chunks between them)
    history_exists: bool = True   # the schema history store holds a history
    purged: str | None = None     # why the stored position cannot be read again; None when it can
    offsets_reset: bool = False   # snapshot.on.data.error dropped the stored offset (Debezium's resetOffset)

    @property
    def completed(self) -> bool:
        return self.stored and not self.in_progress and not self.offsets_reset


@dataclass(frozen=True)
class StartDecision:
    action: Action
    rule: str                              # the table row that decided, for the log and the tests
    with_data: bool = False                # SNAPSHOT: read rows, not only the schema
    message: str = ""                      # REFUSE: the error; otherwise what to log (warning when set)
    fallback: "StartDecision | None" = None  # RESUME_SNAPSHOT: what to do when resuming proves impossible


Rule = tuple[str, Callable[[SnapshotPolicy, StartInputs], bool],
             Callable[[SnapshotPolicy, StartInputs], StartDecision]]


def _lost_history(p: SnapshotPolicy, i: StartInputs) -> bool:
    # configuration_based's snapshot.on.schema.error when the mode itself takes no snapshot (snapshot/modes.py).
    return p.on_schema_error and not p.snapshots(True) and not i.history_exists


def _recovers(p: SnapshotPolicy, i: StartInputs) -> bool:
    return i.completed and ((p.snapshot_schema(True) and not p.stream_from_snapshot) or _lost_history(p, i))


def _resumes(p: SnapshotPolicy, i: StartInputs) -> bool:
    return i.in_progress and i.resumable and i.purged is None and p.snapshot_data(True, True)


# Only MySQL without GTIDs and without a writable signal table gets here (elsewhere watermarks that write nothing
# exist: snapshot/incremental/read_only.py): the restart reads everything again at a new position, as Debezium.
NO_WATERMARKS = ("the initial snapshot was interrupted; resuming it in commit order reads its remainder in chunks "
                 "between watermarks: on MySQL without GTIDs these need signal.data.collection (a signal table the "
                 "connector can write), the source signal channel and read.only=false: taking the snapshot again "
                 "from the start instead, as Debezium does. Set signal.data.collection or gtid_mode=ON to resume "
                 "rather than read everything again")


def _snapshot(p: SnapshotPolicy, i: StartInputs) -> StartDecision:
    exists = i.stored and not i.offsets_reset
    with_data = p.snapshot_data(exists, i.in_progress)
    message = ""
    if exists and not i.in_progress and not with_data:
        message = (f"snapshot.mode={p.mode.value} re-reads the schema at a new binlog position despite the stored "
                   f"offset (as Debezium): changes made while the connector was stopped are not streamed")
    elif i.offsets_reset:
        message = (f"stored position was purged ({i.purged}); snapshot.mode={p.mode.value} takes a new snapshot")
    return StartDecision(Action.SNAPSHOT, "snapshot", with_data=with_data, message=message)


def _refuse(rule: str, message: Callable[[SnapshotPolicy, StartInputs], str]
            ) -> Callable[[SnapshotPolicy, StartInputs], StartDecision]:
    return lambda p, i: StartDecision(Action.REFUSE, rule, message=message(p, i))


def _mode(p: SnapshotPolicy) -> str:
    return p.mode.value


RULES: list[Rule] = [
    ("recovery, position purged", lambda p, i: _recovers(p, i) and i.purged is not None,
     _refuse("recovery, position purged", lambda p, i: str(i.purged))),
    ("recovery", _recovers,
     lambda p, i: StartDecision(Action.RECOVER_SCHEMA, "recovery",
                                message=f"snapshot.mode={_mode(p)}: rebuilding the schema history from the current "
                                        f"tables at the stored offset")),
    ("purged, snapshot again",
     lambda p, i: i.completed and not p.snapshots(True) and i.purged is not None and p.on_data_error,
     lambda p, i: decide(p, replace(i, offsets_reset=True))),
    ("purged", lambda p, i: i.completed and not p.snapshots(True) and i.purged is not None,
     _refuse("purged", lambda p, i: str(i.purged))),
    ("resume streaming", lambda p, i: i.completed and not p.snapshots(True),
     lambda p, i: StartDecision(Action.STREAM, "resume streaming")),
    ("resume snapshot",
     lambda p, i: _resumes(p, i) and i.watermarks and p.stream,
     lambda p, i: StartDecision(Action.RESUME_SNAPSHOT, "resume snapshot",
                                fallback=decide(p, replace(i, resumable=False)))),
    # The remainder is read beside streaming: a mode that does not stream (initial_only) starts over.
    ("interrupted snapshot, no watermarks", lambda p, i: _resumes(p, i) and p.stream,
     lambda p, i: replace(_snapshot(p, i), rule="interrupted snapshot, no watermarks", message=NO_WATERMARKS)),
    ("interrupted snapshot, mode takes none", lambda p, i: i.in_progress and not p.snapshots(True, True),
     _refuse("interrupted snapshot, mode takes none",
             lambda p, i: f"the connector stopped during a snapshot, but snapshot.mode={_mode(p)} takes no snapshot "
                          f"now: use snapshot.mode=initial or when_needed to take it again")),
    ("no offsets to recover", lambda p, i: p.on_schema_error and not i.stored,
     _refuse("no offsets to recover",
             lambda p, i: f"snapshot.mode={_mode(p)} rebuilds the schema history for stored offsets, but there are "
                          f"none; with no offsets use snapshot.mode=initial")),
    ("no snapshot", lambda p, i: not p.snapshots(i.stored and not i.offsets_reset, i.in_progress),
     lambda p, i: StartDecision(Action.STREAM_FROM_OLDEST, "no snapshot",
                                message=f"snapshot.mode={_mode(p)} takes no snapshot: streaming from the start of the "
                                        f"oldest binlog; tables created before it have no schema and cannot be "
                                        f"captured")),
    ("snapshot", lambda p, i: True, _snapshot),
]


def decide(policy: SnapshotPolicy, inputs: StartInputs) -> StartDecision:
    """The first rule of `RULES` that matches `inputs` under `policy`."""
    for _name, matches, action in RULES:
        if matches(policy, inputs):
            return action(policy, inputs)
    raise AssertionError("the last rule matches everything")
