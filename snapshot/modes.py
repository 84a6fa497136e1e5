"""`snapshot.mode` as data: what each mode snapshots, when, and whether streaming follows.

Debezium 3.6 gives each mode a `Snapshotter` (`io.debezium.snapshot.mode.*`): `shouldSnapshotData` and
`shouldSnapshotSchema` take (offset exists, snapshot in progress); `shouldStream`, `shouldSnapshotOnSchemaError`
(history lost: rebuild it at the stored offset), `shouldSnapshotOnDataError` (stored position purged: take a new
snapshot) and `shouldStreamEventsStartingFromSnapshot` (false only for recovery, which keeps the stored offset).
Here each mode is one row of `POLICIES`; `configuration_based` is the row its five properties describe
(`ConfigurationBasedSnapshotter`: the flags hold whether or not offsets exist).

Equivalences, as in Debezium: configuration_based with data+schema+stream = always, data+schema without stream
= always without streaming (initial_only on the first start), schema+stream = no_data that re-reads the schema
at every start, nothing + stream = Debezium 2's `never` (streams from the oldest binlog). Debezium 3.6.3 refuses
`snapshot.mode=never`; binlog-cdc keeps it, so 2.x configurations carry over, and warns with the 3.6 spelling
(golden `snapshot-config-stream` is that spelling). Like Debezium, a schema-only snapshot taken despite a stored
offset streams from its own, new position (only recovery keeps the stored one): changes made while the connector was
stopped are then skipped, which the daemon logs as a warning.

`snapshot.on.schema.error` with a lost history: Debezium only re-creates the history storage and relies on the
mode's own schema snapshot (none without `snapshot.schema`, so streaming then fails on unknown tables); here,
when the mode takes no snapshot, the schema is rebuilt at the stored offset as `recovery` does, which is what
the property's documentation promises.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Enum

from connector.config.modes import SnapshotMode
from connector.config.settings import ConfigurationBasedSettings
from connector.errors import ConfigError


class When(Enum):
    NEVER = "never"
    FRESH = "fresh"    # no stored offset, or the stored snapshot did not complete
    ALWAYS = "always"  # at every start

    def applies(self, offset_exists: bool, in_progress: bool) -> bool:
        return self is When.ALWAYS or (self is When.FRESH and (not offset_exists or in_progress))


@dataclass(frozen=True)
class SnapshotPolicy:
    mode: SnapshotMode
    data: When
    schema: When
    stream: bool = True
    on_schema_error: bool = False
    on_data_error: bool = False
    stream_from_snapshot: bool = True

    def snapshot_data(self, offset_exists: bool, in_progress: bool = False) -> bool:
        return self.data.applies(offset_exists, in_progress)

    def snapshot_schema(self, offset_exists: bool, in_progress: bool = False) -> bool:
        return self.schema.applies(offset_exists, in_progress)

    def snapshots(self, offset_exists: bool, in_progress: bool = False) -> bool:
        return self.snapshot_data(offset_exists, in_progress) or self.snapshot_schema(offset_exists, in_progress)


M, F, A, N = SnapshotMode, When.FRESH, When.ALWAYS, When.NEVER
POLICIES: dict[SnapshotMode, SnapshotPolicy] = {
    M.INITIAL: SnapshotPolicy(M.INITIAL, data=F, schema=F),
    M.INITIAL_ONLY: SnapshotPolicy(M.INITIAL_ONLY, data=F, schema=F, stream=False),
    M.NO_DATA: SnapshotPolicy(M.NO_DATA, data=N, schema=F),
    M.NEVER: SnapshotPolicy(M.NEVER, data=N, schema=N),
    M.WHEN_NEEDED: SnapshotPolicy(M.WHEN_NEEDED, data=F, schema=F, on_data_error=True),
    M.ALWAYS: SnapshotPolicy(M.ALWAYS, data=A, schema=A),
    # Schema at the stored offset (never a new position), and only with stored offsets.
    M.RECOVERY: SnapshotPolicy(M.RECOVERY, data=N, schema=A, on_schema_error=True, stream_from_snapshot=False),
    M.CONFIGURATION_BASED: SnapshotPolicy(M.CONFIGURATION_BASED, data=N, schema=N),  # see configuration_based()
}


def configuration_based(flags: ConfigurationBasedSettings) -> SnapshotPolicy:
    if flags.snapshot_data and not flags.snapshot_schema:
        # Debezium 3.6.3 takes no lock and reads no position without a schema snapshot, then fails in the data
        # step (NullPointerException "table is null", seen with the reference harness): refuse it up front.
        raise ConfigError([("snapshot.mode.configuration.based.snapshot.data=true needs "
                            "snapshot.mode.configuration.based.snapshot.schema=true: data cannot be snapshotted "
                            "without the schema it is read with")])
    return replace(POLICIES[M.CONFIGURATION_BASED],
                   data=A if flags.snapshot_data else N, schema=A if flags.snapshot_schema else N,
                   stream=flags.start_stream, on_schema_error=flags.snapshot_on_schema_error,
                   on_data_error=flags.snapshot_on_data_error)


NO_FLAGS = ConfigurationBasedSettings()


def policy_for(mode: SnapshotMode, flags: ConfigurationBasedSettings = NO_FLAGS) -> SnapshotPolicy:
    if mode is SnapshotMode.CONFIGURATION_BASED:
        return configuration_based(flags)
    try:
        return POLICIES[mode]
    except KeyError:
        raise ConfigError([(f"snapshot.mode={mode.value} is not supported: it loads a Java Snapshotter "
                            f"(snapshot.mode.custom.name) that a Python connector cannot run; use "
                            f"snapshot.mode=configuration_based to choose schema, data and streaming "
                            f"separately")]) from None
