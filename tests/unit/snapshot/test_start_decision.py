"""The start decision, one row per case: (mode, stored offset, history, purge) → action (snapshot/start_decision.py)."""
from __future__ import annotations

import pytest

from connector.config.modes import SnapshotMode as M
from connector.config.settings import ConfigurationBasedSettings
from snapshot.modes import policy_for
from snapshot.start_decision import Action as A, StartInputs, decide

NONE = StartInputs()
DONE = StartInputs(stored=True)
NO_HISTORY = StartInputs(stored=True, history_exists=False)
PURGED = StartInputs(stored=True, purged="binlog file mysql-bin.000001 was purged")
STOPPED = StartInputs(stored=True, in_progress=True)
RESUMABLE = StartInputs(stored=True, in_progress=True, resumable=True, watermarks=True)
NO_WATERMARKS = StartInputs(stored=True, in_progress=True, resumable=True, watermarks=False)
RESUMABLE_PURGED = StartInputs(stored=True, in_progress=True, resumable=True, watermarks=True, purged="gone")
RECOVER_FLAGS = ConfigurationBasedSettings(snapshot_on_schema_error=True)
RESNAPSHOT_FLAGS = ConfigurationBasedSettings(snapshot_on_data_error=True, snapshot_data=True, snapshot_schema=True)

# mode, configuration_based flags, inputs, action, with_data, message fragment (REFUSE / logged)
TABLE = [
    (M.INITIAL, None, NONE, A.SNAPSHOT, True, ""),
    (M.INITIAL, None, DONE, A.STREAM, False, ""),
    (M.INITIAL, None, PURGED, A.REFUSE, False, "was purged"),
    (M.INITIAL, None, STOPPED, A.SNAPSHOT, True, ""),
    (M.INITIAL, None, RESUMABLE, A.RESUME_SNAPSHOT, False, ""),
    # no signal table to write watermarks to: start over as Debezium, saying what it costs and what to set
    (M.INITIAL, None, NO_WATERMARKS, A.SNAPSHOT, True, "Set signal.data.collection or gtid_mode=ON"),
    (M.WHEN_NEEDED, None, RESUMABLE, A.RESUME_SNAPSHOT, False, ""),
    (M.INITIAL_ONLY, None, RESUMABLE, A.SNAPSHOT, True, ""),  # the remainder is read by streaming: none here
    (M.INITIAL, None, RESUMABLE_PURGED, A.SNAPSHOT, True, ""),
    (M.INITIAL_ONLY, None, NONE, A.SNAPSHOT, True, ""),
    (M.INITIAL_ONLY, None, DONE, A.STREAM, False, ""),
    (M.NO_DATA, None, NONE, A.SNAPSHOT, False, ""),
    (M.NO_DATA, None, DONE, A.STREAM, False, ""),
    (M.NO_DATA, None, STOPPED, A.SNAPSHOT, False, ""),
    (M.NO_DATA, None, RESUMABLE, A.SNAPSHOT, False, ""),  # nothing to resume: no data is read
    (M.NO_DATA, None, NO_WATERMARKS, A.SNAPSHOT, False, ""),
    (M.NEVER, None, RESUMABLE, A.REFUSE, False, "stopped during a snapshot"),
    (M.NEVER, None, NONE, A.STREAM_FROM_OLDEST, False, "oldest binlog"),
    (M.NEVER, None, DONE, A.STREAM, False, ""),
    (M.NEVER, None, STOPPED, A.REFUSE, False, "stopped during a snapshot"),
    (M.WHEN_NEEDED, None, NONE, A.SNAPSHOT, True, ""),
    (M.WHEN_NEEDED, None, DONE, A.STREAM, False, ""),
    (M.WHEN_NEEDED, None, PURGED, A.SNAPSHOT, True, "takes a new snapshot"),
    (M.ALWAYS, None, DONE, A.SNAPSHOT, True, ""),
    (M.ALWAYS, None, PURGED, A.SNAPSHOT, True, ""),
    (M.RECOVERY, None, NONE, A.REFUSE, False, "but there are none"),
    (M.RECOVERY, None, DONE, A.RECOVER_SCHEMA, False, "rebuilding the schema history"),
    (M.RECOVERY, None, PURGED, A.REFUSE, False, "was purged"),
    (M.CONFIGURATION_BASED, RECOVER_FLAGS, NO_HISTORY, A.RECOVER_SCHEMA, False, ""),
    (M.CONFIGURATION_BASED, RECOVER_FLAGS, DONE, A.STREAM, False, ""),
    (M.CONFIGURATION_BASED, ConfigurationBasedSettings(snapshot_schema=True), DONE, A.SNAPSHOT, False,
     "changes made while the connector was stopped are not streamed"),
    (M.CONFIGURATION_BASED, RESNAPSHOT_FLAGS, NONE, A.SNAPSHOT, True, ""),
    (M.CONFIGURATION_BASED, ConfigurationBasedSettings(snapshot_on_data_error=True), PURGED,
     A.STREAM_FROM_OLDEST, False, "oldest binlog"),
]


@pytest.mark.parametrize("mode,flags,inputs,action,with_data,message", TABLE,
                         ids=[f"{r[0].value}-{i}" for i, r in enumerate(TABLE)])
def test_start_decision(mode: M, flags: ConfigurationBasedSettings | None, inputs: StartInputs, action: A,
                        with_data: bool, message: str) -> None:
    decision = decide(policy_for(mode, flags or ConfigurationBasedSettings()), inputs)
    assert (decision.action, decision.with_data) == (action, with_data), decision.rule
    assert message in decision.message


def test_a_resumed_snapshot_falls_back_to_a_new_one() -> None:
    decision = decide(policy_for(M.INITIAL), RESUMABLE)
    assert decision.fallback is not None
    assert (decision.fallback.action, decision.fallback.with_data) == (A.SNAPSHOT, True)
