"""Workload -> binlog-cdc -> Kafka, compared with what real Debezium 3.6.3 emitted.

One test per golden directory under tests/fixtures/golden/ (recorded by the reference
harness). The golden's run_info.json names the workload (tests/fixtures/workloads/<same
file name>) and the server flavour; its engine.properties gives the Debezium properties,
and the ones that differ from the runner's defaults are passed on as --prop.

MariaDB goldens are compared as committed. For MySQL, Debian sid moves: the committed golden
is used when it was recorded with the MySQL version we have, and the test skips with the
reason otherwise. BINLOG_CDC_LIVE_REFERENCE=1 opts in to running the reference harness live
next to us (../shared/reference or $DBZ_REFERENCE_DIR; ~15 s and a JVM per golden) and
comparing with what it records, whatever the versions; that is how a golden is checked after
sid moved.
"""
from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from tests.conformance.compare import compare_dirs, report
from tests.conformance.config import RunConfig
from tests.conformance.positions import by_event
from tests.conformance.reference import reference_dir, run_reference
from tests.conformance.run import RunOptions, run_workload
from tests.support.ddl_corpus import workload_file

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
GOLDEN = FIXTURES / "golden"
# properties the runner sets itself (storage, sink, port) or that only the harness reads
RUNNER_OWNED = ("offset.", "schema.history.internal", "database.port", "harness.", "key.converter",
                "value.converter", "name")


def goldens() -> list[str]:
    return sorted(p.name for p in GOLDEN.iterdir() if (p / "run_info.json").exists() and not p.name.endswith("-avro"))


def read_properties(path: Path) -> dict[str, str]:
    props = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith(("#", "!")):
            k, _, v = line.partition("=")
            props[k.replace("\\", "")] = _JAVA_ESCAPE.sub(lambda m: _JAVA_ESCAPES.get(m.group(1), m.group(1)), v)
    return props


# java.util.Properties escapes: `\\` → `\`, `\:` → `:` (message.key.columns), `\t` → tab, ...
_JAVA_ESCAPE = re.compile(r"\\(.)")
_JAVA_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}


def extra_props(golden: Path) -> tuple[str, ...]:
    """The golden's Debezium properties that differ from the runner's defaults (or are absent there)."""
    mine = RunConfig(Path("/x"), 0, "").source_properties()
    theirs = read_properties(golden / "engine.properties")
    extra = [f"{k}={v}" for k, v in theirs.items() if not k.startswith(RUNNER_OWNED) and mine.get(k) != v]
    extra += [f"{k}=" for k in mine if not k.startswith(RUNNER_OWNED) and k not in theirs]
    # JsonConverter without schemas (basic-schemaless): the runner maps these to debezium.format.*
    extra += [f"{k}={v}" for k, v in theirs.items() if k.endswith("converter.schemas.enable") and v != "true"]
    # CloudEvents values (recorded with a copy of the harness whose DbzRef runs Debezium's CloudEventsConverter)
    extra += [f"{k}={v}" for k, v in theirs.items() if k == "value.converter" and "CloudEventsConverter" in v]
    return tuple(extra)


# The status file is exact for what streaming emits from the binlog: it is written on the streaming thread between
# events, so a reader position at the target with every sent record acked means every record of the events before it
# is in Kafka. Quiet (no new record for QUIET_MS) is waited for where records come beside the binlog: incremental and
# blocking snapshot chunks after a signal, notifications, and rows rendered in encode worker processes.
QUIET_MS = 500
EXACT_QUIET_MS = 100
ASYNC_PROPS = ("signal.", "notification.", "encode.workers")


def quiet_ms(workload: Path, props: tuple[str, ...]) -> int:
    signalled = "signal" in workload.read_text(encoding="utf-8").lower()
    return QUIET_MS if signalled or any(p.startswith(ASYNC_PROPS) for p in props) else EXACT_QUIET_MS


def partition_counts(golden: Path) -> tuple[tuple[str, int], ...]:
    """Each topic the golden writes to partitions above 0, with the partition count that needs."""
    highest: dict[str, int] = {}
    for line in (golden / "events.jsonl").read_text(encoding="utf-8").splitlines():
        event = json.loads(line)
        highest[event["topic"]] = max(highest.get(event["topic"], 0), event.get("kafkaPartition") or 0)
    return tuple((topic, n + 1) for topic, n in sorted(highest.items()) if n > 0)


def mysql_version(dist) -> str | None:
    return dist.version()


def live_reference_wanted() -> bool:
    """BINLOG_CDC_LIVE_REFERENCE=1: record every MySQL golden live with the reference harness (opt-in)."""
    return os.environ.get("BINLOG_CDC_LIVE_REFERENCE", "0").lower() in ("1", "true", "yes")


@pytest.mark.parametrize("name", goldens())
def test_conformance(name, tmp_path, request):
    check_golden(name, tmp_path, request)


# encode.workers: rows events decoded and rendered in worker processes must give the same records in the same
# order. Workers take rows events only without transaction metadata (these goldens were recorded without it):
# every value type, transforms, deletes with tombstones, primary-key changes, DDL between rows (a DDL's source
# names the last row read), an incremental snapshot's chunks between streamed rows; plus one golden with
# transaction metadata, where the workers stay idle and everything is rendered in the connector's process.
WORKER_GOLDENS = ("realworld-notx", "types-mysql-notx", "ddl_heavy-notx", "signals_incremental-notx",
                  "transforms-notx", "basic")


@pytest.mark.parametrize("name", WORKER_GOLDENS)
def test_conformance_encode_workers(name, tmp_path, request):
    check_golden(name, tmp_path, request, ("encode.workers=2",))
    log = (tmp_path / "actual" / "connector.log").read_text(encoding="utf-8")
    rendered = re.search(r"encode workers rendered (\d+) rows events into (\d+) records", log)
    assert rendered is not None, "the connector did not stop cleanly (no encode workers summary in its log)"
    if name.endswith("-notx"):  # with transaction metadata every rows event stays in the connector's process
        assert int(rendered.group(1)) > 0 and int(rendered.group(2)) > 0, rendered.group(0)


def check_golden(name: str, tmp_path: Path, request: pytest.FixtureRequest, more: tuple[str, ...] = ()) -> None:
    golden = GOLDEN / name
    # The differential test of the fused row path (connector/dispatch/fused_rows.py): each row it renders is also
    # rendered by the general path, and the connector stops on the first difference (the golden then fails).
    request.getfixturevalue("monkeypatch").setenv("BINLOG_CDC_FUSED_ROWS", "check")
    info = json.loads((golden / "run_info.json").read_text())
    server = info.get("server", "mariadb")
    workload = workload_file(Path(info["workload"]).name, tmp_path / "workload")
    props = extra_props(golden) + more
    # Compressed transactions (zstd payload sizes vary run to run): compare which binlog event each position names.
    by_binlog_event = info.get("compare_positions") == "binlog_event"
    # a transform picks partitions (PartitionRouting): topics get as many, and order is compared per partition
    by_partition = bool(info.get("compare_partitions"))

    if server == "mysql":
        request.applymarker(pytest.mark.mysql)
        dist = request.getfixturevalue("mysql_distribution")
        # "live_reference": false: the shared harness cannot record this run (golden made with a patched copy of it)
        if live_reference_wanted() and info.get("live_reference", True):
            if reference_dir() is None:
                pytest.fail("BINLOG_CDC_LIVE_REFERENCE=1 but no reference harness (set DBZ_REFERENCE_DIR)")
            live = tmp_path / "reference"
            live_info = run_reference(workload, live, "mysql", tmp_path, props, copy_binlog=by_binlog_event)
            assert live_info["records"] > 0
            golden = live
        elif info.get("mysql") != mysql_version(dist):
            pytest.skip(f"the golden was recorded with MySQL {info.get('mysql')}, not {mysql_version(dist)}: "
                        "re-record it, or compare with a live reference run (BINLOG_CDC_LIVE_REFERENCE=1)")

    out = tmp_path / "actual"
    # 120 s per wait: a hung connector must not eat the CI budget (a healthy run needs ~10 s). Less quiet than the
    # harness's 1.5 s: our status file is exact (reader position, sent and acked counts, refreshed at least every
    # 0.2 s); the quiet only has to cover records that follow the target position (quiet_ms above).
    run_workload(RunOptions(workload, out, server=server, props=props, timeout=120, scratch=tmp_path / "servers",
                            quiet_ms=quiet_ms(workload, props),
                            stream=info.get("stream", True),
                            # a transform's topics (outbox.event.*, merged shards) single-partition too, so their
                            # order compares as the golden's
                            topics=tuple(info.get("by_topic", {})),
                            topic_partitions=partition_counts(golden) if by_partition else (),
                            record_partitions=by_partition))
    if by_binlog_event:
        golden = by_event(golden, golden / "binlog", tmp_path / "golden-by-event")
        out = by_event(out, tmp_path / "servers", tmp_path / "actual-by-event")
    mismatches = compare_dirs(golden, out, partitions=by_partition)
    assert not mismatches, f"{name}: output differs from real Debezium ({golden}):\n{report(mismatches)}"
