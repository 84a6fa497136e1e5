"""snapshot.mode policies (configuration_based included), the parallel snapshot's table assignment and the
snapshot markers of interleaved tables, and the refusals of what a Python connector cannot load."""
from __future__ import annotations

import pytest

from connector.config import load_config
from connector.config.modes import SnapshotMode
from connector.config.settings import ConfigurationBasedSettings
from connector.errors import ConfigError
from schema_history.model import TableId
from snapshot.modes import POLICIES, When, policy_for
from snapshot.parallel import SnapshotMarkers, assign
from snapshot.chunks import TableScan
from snapshot.plan import TableRead
from tests.unit.config.test_config import SERVER
from connector.transforms.config import transform_settings

M = SnapshotMode

# (offset exists, snapshot in progress) -> (data, schema) for every mode with a fixed policy
EXPECTED = {
    M.INITIAL: {(False, False): (True, True), (True, False): (False, False), (True, True): (True, True)},
    M.INITIAL_ONLY: {(False, False): (True, True), (True, False): (False, False), (True, True): (True, True)},
    M.NO_DATA: {(False, False): (False, True), (True, False): (False, False), (True, True): (False, True)},
    M.NEVER: {(False, False): (False, False), (True, False): (False, False), (True, True): (False, False)},
    M.ALWAYS: {(False, False): (True, True), (True, False): (True, True), (True, True): (True, True)},
    M.WHEN_NEEDED: {(False, False): (True, True), (True, False): (False, False), (True, True): (True, True)},
}


@pytest.mark.parametrize("mode", list(EXPECTED))
def test_fixed_policies(mode):
    policy = policy_for(mode)
    for (exists, in_progress), (data, schema) in EXPECTED[mode].items():
        assert policy.snapshot_data(exists, in_progress) is data, (mode, exists, in_progress)
        assert policy.snapshot_schema(exists, in_progress) is schema, (mode, exists, in_progress)
    assert policy.stream is (mode is not M.INITIAL_ONLY)


def test_recovery_keeps_the_stored_offset_and_when_needed_resnapshots_purged_positions():
    assert not POLICIES[M.RECOVERY].stream_from_snapshot and POLICIES[M.RECOVERY].on_schema_error
    assert POLICIES[M.WHEN_NEEDED].on_data_error and not POLICIES[M.INITIAL].on_data_error


@pytest.mark.parametrize("data, schema, stream", [(True, True, True), (True, True, False), (False, True, True),
                                                  (False, False, True), (False, False, False)])
def test_configuration_based_flags_hold_with_or_without_offsets(data, schema, stream):
    policy = policy_for(M.CONFIGURATION_BASED, ConfigurationBasedSettings(data, schema, stream))
    for exists, in_progress in ((False, False), (True, False), (True, True)):
        assert policy.snapshot_data(exists, in_progress) is data
        assert policy.snapshot_schema(exists, in_progress) is schema
    assert policy.stream is stream and policy.stream_from_snapshot


def test_configuration_based_error_flags():
    policy = policy_for(M.CONFIGURATION_BASED, ConfigurationBasedSettings(snapshot_on_schema_error=True,
                                                                          snapshot_on_data_error=True))
    assert policy.on_schema_error and policy.on_data_error and policy.data is When.NEVER


def test_configuration_based_data_without_schema_is_refused():
    with pytest.raises(ConfigError, match="snapshot.schema=true"):
        policy_for(M.CONFIGURATION_BASED, ConfigurationBasedSettings(snapshot_data=True))


def test_custom_snapshot_mode_is_refused():
    with pytest.raises(ConfigError, match="configuration_based"):
        policy_for(M.CUSTOM)


def _settings(tmp_path, **props: str):
    text = "".join(f"debezium.source.{k}={v}\n" for k, v in props.items())
    path = tmp_path / "application.properties"
    path.write_text(SERVER + text)
    return load_config(path, environ={}).settings(transform_settings)


def test_configuration_based_properties_are_read(tmp_path):
    s = _settings(tmp_path, **{"snapshot.mode": "configuration_based",
                     "snapshot.mode.configuration.based.snapshot.schema": "true",
                     "snapshot.mode.configuration.based.start.stream": "true",
                     "snapshot.mode.configuration.based.snapshot.on.data.error": "true"})
    assert s.snapshot.configuration_based == ConfigurationBasedSettings(
        snapshot_data=False, snapshot_schema=True, start_stream=True, snapshot_on_schema_error=False,
        snapshot_on_data_error=True)


def test_never_is_kept_for_2x_configs_and_equals_its_configuration_based_spelling(tmp_path):
    # Debezium 3.6.3 refuses "never"; its 3.6 spelling (nothing + stream) is golden snapshot-config-stream
    never = _settings(tmp_path, **{"snapshot.mode": "never"})
    spelled = _settings(tmp_path, **{"snapshot.mode": "configuration_based",
                                     "snapshot.mode.configuration.based.start.stream": "true"})
    for s in (never, spelled):
        policy = policy_for(s.snapshot.mode, s.snapshot.configuration_based)
        assert policy.stream and not policy.snapshots(offset_exists=False)
        assert not policy.snapshots(offset_exists=True, in_progress=True)


def test_custom_query_mode_is_refused_naming_the_overrides(tmp_path):
    with pytest.raises(ConfigError) as err:
        _settings(tmp_path, **{"snapshot.query.mode": "custom", "snapshot.query.mode.custom.name": "my-query"})
    assert "my-query" in str(err.value) and "snapshot.select.statement.overrides" in str(err.value)


@pytest.mark.parametrize("threads", ["0", "-2"])
def test_max_threads_must_be_positive(threads, tmp_path):
    with pytest.raises(ConfigError, match="snapshot.max.threads"):
        _settings(tmp_path, **{"snapshot.max.threads": threads})


# ---------------------------------------------------------------- parallel assignment
def _read(name: str, estimate: int | None) -> TableRead:
    return TableRead(TableId("db", name), TableScan(TableId("db", name)), estimate, False)


def test_assign_largest_first_to_the_least_loaded_reader():
    reads = [_read("a", 10), _read("b", 1000), _read("c", 600), _read("d", 500), _read("e", None), _read("f", 90)]
    plan = assign(reads, 3)
    assert [[r.table_id.table for r in tables] for tables in plan] == [["b"], ["c", "e"], ["d", "f", "a"]]
    assert assign(reads[:1], 3) == [[reads[0]], [], []]


# ---------------------------------------------------------------- markers of interleaved tables
A, B, C = TableId("db", "a"), TableId("db", "b"), TableId("db", "c")


def _emit(events) -> list[tuple[str, tuple, str]]:
    """events: ("row", table, value) / ("done", table); returns (table, values, marker) in emission order."""
    markers, out, index = SnapshotMarkers(), [], {}
    for event in events:
        if event[0] == "row":
            _, table, value = event
            out += markers.row(table, (value,), index.get(table, 0))
            index[table] = index.get(table, 0) + 1
        else:
            out += markers.table_done(event[1])
    final = markers.final()
    if final is not None:
        out.append(final)
    return [(t.table, v, m) for t, v, m in out]


def test_interleaved_tables_get_debeziums_markers():
    out = _emit([("row", A, 1), ("row", B, 10), ("row", A, 2), ("row", B, 11), ("row", A, 3), ("done", A),
                 ("row", B, 12), ("done", C), ("done", B)])
    assert out == [("a", (1,), "first"), ("b", (10,), "first_in_data_collection"), ("a", (2,), "true"),
                   ("b", (11,), "true"), ("a", (3,), "last_in_data_collection"), ("b", (12,), "last")]
    assert [m for _, _, m in out].count("last") == 1 and out[-1][2] == "last"


def test_last_table_empty_still_marks_the_real_last_record():
    # b finishes last but is empty: a's final row is the snapshot's last record
    out = _emit([("row", A, 1), ("row", A, 2), ("done", A), ("done", B)])
    assert out == [("a", (1,), "first"), ("a", (2,), "last")]


def test_single_row_and_no_rows():
    assert _emit([("row", A, 1), ("done", A)]) == [("a", (1,), "last")]
    assert _emit([("done", A), ("done", B)]) == []


def test_rows_of_a_table_keep_their_order():
    events = [("row", A, i) for i in range(5)] + [("row", B, 100)] + [("row", A, i) for i in range(5, 9)]
    out = _emit(events + [("done", B), ("done", A)])
    assert [v[0] for t, v, _ in out if t == "a"] == list(range(9))
    assert out[-1] == ("a", (8,), "last") and ("b", (100,), "last_in_data_collection") in out
