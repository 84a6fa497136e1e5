#!/usr/bin/env python3
"""Conformance runner: run a workload through `binlog-cdc` and write the harness's files.

    run.py WORKLOAD.sql OUT_DIR [--server mariadb|mysql] [--prop key=value ...] [--port N]
           [--offsets file|kafka] [--history file|kafka] [--quiet-ms 1500] [--timeout 300]

What a run does (the mirror of /work/shared/reference/run_reference.py, with our connector
and a Kafka broker in place of the embedded engine):
 1. starts the database with the `reference` profile (binlog positions equal the goldens')
    and a Tansu broker, both on free loopback ports in a scratch directory;
 2. loads the setup section with the command-line client, then creates single-partition
    topics for every table (Tansu would auto-create 4 partitions and lose per-topic order);
 3. writes OUT_DIR/application.properties (the harness's Debezium properties + --prop) and
    starts `binlog-cdc run CONFIG --status-file OUT_DIR/status.json`;
 4. waits for phase "streaming", then after each streaming section waits until the status
    file's reader position reached SHOW MASTER STATUS / SHOW BINARY LOG STATUS, every sent
    record is acked, and nothing new was sent for --quiet-ms;
 5. SIGTERMs the connector (it must exit 0), reads every topic back to its end and writes
    events.jsonl, offsets.json (`binlog-cdc offsets show`), schema_history.jsonl,
    connector.log and run_info.json; stops everything it started.
Exit status 0 when the run went through (use compare.py to judge the output).
"""
from __future__ import annotations

import argparse
import contextlib
import dataclasses
import io
import json
import os
import shlex
import shutil
import re
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `tests.*` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from connector.config.event_settings import TopicSettings  # noqa: E402
from connector.events.topic_names import data_topic_name  # noqa: E402
from schema_history.model import TableId  # noqa: E402
from tests.conformance.config import HISTORY_TOPIC, OFFSETS_TOPIC, RunConfig  # noqa: E402
from tests.support.connector_process import ConnectorError, ConnectorProcess, default_connector_cmd  # noqa: E402
from tests.conformance.output import (event_lines, parse_json_bytes, summarize, write_avro_schemas,  # noqa: E402
                                      write_jsonl)
from tests.support.schema_registry import SchemaRegistryServer  # noqa: E402
from tests.support.kafka_dump import consume_all  # noqa: E402
from tests.support.servers import DatabaseServer, MariaDBServer, MySQLServer, Profile, TansuBroker  # noqa: E402
from tests.support.workload import Workload  # noqa: E402

OUTPUT_FILES = ("events.jsonl", "offsets.dat", "offsets.json", "schema_history.jsonl", "status.json",
                "connector.log", "run_info.json", "application.properties", "mariadb.cnf", "mysql.cnf")
# --format → the Confluent converter class written to the connector's configuration
CONVERTERS = {"avro": "io.confluent.connect.avro.AvroConverter",
              "protobuf": "io.confluent.connect.protobuf.ProtobufConverter"}
SYSTEM_SCHEMAS = ("mysql", "information_schema", "performance_schema", "sys")


class RunError(RuntimeError):
    """The run could not be completed; the message says which step and why."""


@dataclass(frozen=True)
class RunOptions:
    workload: Path
    out_dir: Path
    server: str = "mariadb"
    props: tuple[str, ...] = ()
    port: int | None = None
    offsets: str = "file"
    history: str = "file"
    quiet_ms: int = 1500
    timeout: float = 300
    connector_cmd: tuple[str, ...] = field(default_factory=default_connector_cmd)
    scratch: Path | None = None  # server directories; a fresh temp dir (removed afterwards) if None
    format: str = "json"  # avro/protobuf: Confluent's converter, through a test schema registry (harness --format)
    stream: bool = True  # False: the snapshot mode does not stream; the connector exits by itself after the snapshot
    # more topics to create up front with one partition: ones a transform routes to (Tansu would auto-create
    # them with 4 partitions, and a topic's records would then be read back in per-partition order)
    topics: tuple[str, ...] = ()
    # topics that need more partitions (a transform picks them: PartitionRouting), and whether events.jsonl
    # then records the partition each record was read from
    topic_partitions: tuple[tuple[str, int], ...] = ()
    record_partitions: bool = False


@dataclass(frozen=True)
class RunResult:
    out_dir: Path
    connector_rc: int | None
    info: dict[str, Any]


def _log(msg: str) -> None:
    print(f"[conformance {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def _make_server(opts: RunOptions, scratch: Path) -> DatabaseServer:
    cls = {"mariadb": MariaDBServer, "mysql": MySQLServer}[opts.server]
    return cls(scratch / opts.server, port=opts.port, profile=Profile.REFERENCE)


# The runner opens exactly as many client sessions as the harness, in the same places:
# `source.thread` of streamed records is the workload session's connection id, which counts
# every connection made before it. (The connector's own connections still count too.)
HARNESS_INFO_QUERIES = {"mariadb": ("SELECT VERSION()",),
                        "mysql": ("SELECT VERSION()", "SELECT @@version_comment", "SELECT @@server_uuid")}


def _server_facts(db: DatabaseServer, flavour: str) -> dict[str, Any]:
    """run_info facts, one session per query like the harness's Server.run_info()."""
    values = [db.query(q)[0][0] for q in HARNESS_INFO_QUERIES[flavour]]
    facts = {f"{flavour}_version_string": values[0]}
    if flavour == "mysql":
        facts.update({"mysql_version_comment": values[1], "server_uuid": values[2]})
    return facts


# Tables a streaming section creates or renames into: their topics are created up front too (single partition).
_NAME = r"(`(?:[^`]|``)+`|[\w$]+)"
_CREATED = re.compile(r"CREATE\s+(?:OR\s+REPLACE\s+)?TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?" + _NAME, re.I)
_RENAME = re.compile(r"^\s*RENAME\s+TABLE\b[^;]*", re.I | re.M)
_RENAMED_TO = re.compile(r"\bTO\s+" + _NAME, re.I)
_USE = re.compile(r"^\s*USE\s+`?([\w$]+)`?", re.I | re.M)


def topic_settings(prefix: str, props: tuple[str, ...] = ()) -> TopicSettings:
    """The run's topic naming (topic.delimiter, .transaction, .naming.strategy from `props`), as the connector's."""
    given = dict(p.split("=", 1) for p in props if "=" in p)
    names = {"delimiter": "topic.delimiter", "transaction": "topic.transaction",
             "naming_strategy": "topic.naming.strategy"}
    return TopicSettings(prefix=prefix, **{k: given[v] for k, v in names.items() if given.get(v)})


def streamed_topics(sections: tuple[str, ...], prefix: str | TopicSettings) -> list[str]:
    """Data topics of the tables the streaming sections create (the default database of each `USE`)."""
    naming = prefix if isinstance(prefix, TopicSettings) else topic_settings(prefix)
    topics: list[str] = []
    for section in sections:
        use = _USE.search(section)
        if use is None:
            continue
        names = [m.group(1) for m in _CREATED.finditer(section)]
        names += [m.group(1) for r in _RENAME.finditer(section) for m in _RENAMED_TO.finditer(r.group(0))]
        for name in names:
            name = name[1:-1].replace("``", "`") if name.startswith("`") else name
            topic = data_topic_name(naming, TableId(use.group(1), name))
            if topic not in topics:
                topics.append(topic)
    return topics


def _position_and_topics(db: DatabaseServer, naming: TopicSettings) -> tuple[tuple[str, int], list[str]]:
    """Binlog end and the topics of every table, in ONE session (the harness's master_status)."""
    with db.connect() as conn, conn.cursor() as cur:
        cur.execute(db.binlog_status_sql)
        file, pos = cur.fetchone()[:2]
        cur.execute("SELECT table_schema, table_name FROM information_schema.tables WHERE table_schema NOT IN "
                    f"({', '.join(['%s'] * len(SYSTEM_SCHEMAS))}) AND table_type = 'BASE TABLE'", SYSTEM_SCHEMAS)
        rows = cur.fetchall()
    return (file, int(pos)), [naming.schema_change_topic(), naming.transaction_topic(),
                              *(data_topic_name(naming, TableId(s, t)) for s, t in rows)]


def _offsets_show(opts: RunOptions, config: Path) -> Any:
    """`binlog-cdc offsets show`. For this checkout's connector it runs in this process: a second interpreter
    start costs ~1.4 s of CPU per golden (tests/integration/service/test_cli.py runs the command itself)."""
    if tuple(opts.connector_cmd) == default_connector_cmd():
        from connector.cli import build_parser
        args = build_parser().parse_args(["offsets", "show", str(config)])
        shown = io.StringIO()
        with contextlib.redirect_stdout(shown):
            rc = args.func(args)
        if rc != 0:
            raise RunError(f"`binlog-cdc offsets show` failed (rc={rc})")
        return json.loads(shown.getvalue())
    r = subprocess.run([*opts.connector_cmd, "offsets", "show", str(config)], capture_output=True, text=True,
                       stdin=subprocess.DEVNULL, timeout=120)
    if r.returncode != 0:
        raise RunError(f"`binlog-cdc offsets show` failed (rc={r.returncode}):\n{r.stderr[-3000:]}")
    try:
        return json.loads(r.stdout)
    except ValueError as e:
        raise RunError(f"`binlog-cdc offsets show` printed no JSON ({e}):\n{r.stdout[:2000]}") from None


def _collect(opts: RunOptions, broker: TansuBroker, config: Path, info: dict[str, Any],
             registry: SchemaRegistryServer | None = None) -> None:
    """Read the broker back into events.jsonl (+ schema_history.jsonl for Kafka history; + avro_schemas.json)."""
    out = opts.out_dir
    topics = broker.topics()
    internal = {OFFSETS_TOPIC, HISTORY_TOPIC}
    records = consume_all(broker.bootstrap_servers, topics)
    lines = event_lines([r for r in records if r.topic not in internal], avro=registry is not None,
                        partitions=opts.record_partitions, wire=opts.format)
    if registry is not None:
        write_avro_schemas(out / f"{opts.format}_schemas.json", registry, opts.format.upper())
    write_jsonl(out / "events.jsonl", lines)
    info.update(summarize(lines))
    info["partitions"] = {t: n for t, n in sorted(topics.items()) if t not in internal}
    multi = [t for t, n in info["partitions"].items() if n > 1]
    if multi:
        info["warnings"].append(f"topics with more than one partition (order only per key): {multi}")
    if opts.history == "kafka":
        docs = [parse_json_bytes(r.value) for r in records if r.topic == HISTORY_TOPIC]
        write_jsonl(out / "schema_history.jsonl", docs)


def _run_without_streaming(opts: RunOptions, connector: ConnectorProcess, broker: TansuBroker, config: Path,
                           info: dict[str, Any], registry: SchemaRegistryServer | None) -> RunResult:
    """The harness cannot record such a run (it waits for streaming); its golden is Debezium's output after the
    snapshot, when Debezium logs "Streaming is disabled". Ours must exit 0 by itself with the same output."""
    rc = connector.wait_exit(opts.timeout)
    info["connector_rc"] = rc
    if rc != 0:
        raise RunError(f"connector exit code {rc} (expected 0 after a snapshot without streaming):\n"
                       f"{connector.log_tail()}")
    _collect(opts, broker, config, info, registry)
    offsets = _offsets_show(opts, config)
    (opts.out_dir / "offsets.json").write_text(json.dumps(offsets, indent=2, ensure_ascii=False) + "\n",
                                               encoding="utf-8")
    return RunResult(opts.out_dir, rc, info)


def run_workload(opts: RunOptions) -> RunResult:
    """One conformance run; raises RunError (or ConnectorError) when a step fails."""
    workload = Workload.load(opts.workload)
    out = opts.out_dir.absolute()
    out.mkdir(parents=True, exist_ok=True)
    for name in OUTPUT_FILES:
        (out / name).unlink(missing_ok=True)
    opts = dataclasses.replace(opts, out_dir=out)
    own_scratch = opts.scratch is None
    scratch = Path(tempfile.mkdtemp(prefix="binlog-cdc-conf-")) if own_scratch else opts.scratch
    info: dict[str, Any] = {"workload": str(opts.workload), "server": opts.server, "offsets": opts.offsets,
                            "history": opts.history, "props": list(opts.props), "phases": {}, "warnings": []}
    t0 = time.monotonic()
    db = _make_server(opts, scratch)
    broker = TansuBroker(scratch / "tansu")
    connector: ConnectorProcess | None = None
    registry = SchemaRegistryServer().start() if opts.format in CONVERTERS else None
    if registry is not None:
        opts = dataclasses.replace(opts, props=opts.props + tuple(
            f"{side}.converter{suffix}" for side in ("key", "value")
            for suffix in (f"={CONVERTERS[opts.format]}", f".schema.registry.url={registry.url}")))
    try:
        db.start()
        broker.start()
        info.update({opts.server: db.version(), "db_port": db.port, "bootstrap_servers": broker.bootstrap_servers})
        info.update(_server_facts(db, opts.server))
        _log(f"{opts.server} {db.version()} on {db.port}, tansu on {broker.port}")
        db.run_sql(workload.setup, what="setup section")
        cfg = RunConfig(out, db.port, broker.bootstrap_servers, opts.offsets, opts.history, opts.props)
        naming = topic_settings(cfg.topic_prefix, opts.props)
        position, topics = _position_and_topics(db, naming)
        info["binlog_after_setup"] = list(position)
        if isinstance(db, MySQLServer):
            info["gtid_executed_after_setup"] = db.gtid_executed()
        topics += [t for t in streamed_topics(workload.sections, naming) if t not in topics]
        topics += [t for t in opts.topics if t not in topics]
        wide = dict(opts.topic_partitions)
        for count in sorted(set(wide.values())):
            broker.create_topics([t for t, n in wide.items() if n == count], partitions=count)
        broker.create_topics(topics
                             + ([OFFSETS_TOPIC] if opts.offsets == "kafka" else [])
                             + ([HISTORY_TOPIC] if opts.history == "kafka" else []))
        config = cfg.write(out / "application.properties")
        info["connector_cmd"] = list(opts.connector_cmd)

        t_conn = time.monotonic()
        connector = ConnectorProcess(list(opts.connector_cmd), config, out / "status.json",
                                     out / "connector.log").start()
        if not opts.stream:
            return _run_without_streaming(opts, connector, broker, config, info, registry)
        st = connector.wait_streaming(opts.timeout)
        st = connector.wait_caught_up(db.binlog_position(), opts.quiet_ms, opts.timeout)
        info["phases"]["snapshot_s"] = round(time.monotonic() - t_conn, 2)
        info["records_after_snapshot"] = st.get("records_sent")
        _log(f"snapshot done: {st.get('records_sent')} records")

        t_stream = time.monotonic()
        for i, section in enumerate(workload.sections):
            if section.strip():
                db.run_sql(section, what=f"streaming section {i}")
            target = db.binlog_position()
            st = connector.wait_caught_up(target, opts.quiet_ms, opts.timeout)
            _log(f"section {i} done at {target[0]}:{target[1]}: {st.get('records_sent')} records")
        info["phases"]["streaming_s"] = round(time.monotonic() - t_stream, 2)
        info["binlog_end"] = list(db.binlog_position())
        if isinstance(db, MySQLServer):
            info["gtid_executed_end"] = db.gtid_executed()

        rc = connector.stop()
        info["connector_rc"] = rc
        info["final_status"] = connector.status()
        if rc != 0:
            raise RunError(f"connector exit code {rc} after SIGTERM (expected 0); see {out / 'connector.log'}:\n"
                           f"{connector.log_tail()}")
        _collect(opts, broker, config, info, registry)
        offsets = _offsets_show(opts, config)
        (out / "offsets.json").write_text(json.dumps(offsets, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        return RunResult(out, rc, info)
    finally:
        if connector is not None and "connector_rc" not in info:
            info["connector_rc"] = connector.stop(timeout=30)
            try:  # best effort: what did reach Kafka is the first thing to look at
                if broker.running and not (out / "events.jsonl").exists():
                    _collect(opts, broker, out / "application.properties", info, registry)
            except Exception as e:  # noqa: BLE001 - diagnostics only; the original error propagates
                info["warnings"].append(f"could not read topics back: {e}")
        broker.stop()
        db.discard()  # the binlogs stay for positions.by_event
        if registry is not None:
            registry.stop()
        if db.cnf.exists():
            shutil.copy2(db.cnf, out / f"{opts.server}.cnf")
        info["wall_s"] = round(time.monotonic() - t0, 2)
        (out / "run_info.json").write_text(json.dumps(info, indent=2) + "\n", encoding="utf-8")
        if own_scratch:
            shutil.rmtree(scratch, ignore_errors=True)


def parse_args(argv: list[str] | None) -> RunOptions:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("workload", type=Path)
    ap.add_argument("out_dir", type=Path)
    ap.add_argument("--server", choices=("mariadb", "mysql"), default="mariadb")
    ap.add_argument("--prop", action="append", default=[], help="Debezium source property key=value (key= removes)")
    ap.add_argument("--port", type=int, default=None, help="database port (default: a free one)")
    ap.add_argument("--offsets", choices=("file", "kafka"), default="file")
    ap.add_argument("--history", choices=("file", "kafka"), default="file")
    ap.add_argument("--quiet-ms", type=int, default=1500, help="idle time that counts as 'all records arrived'")
    ap.add_argument("--timeout", type=float, default=300, help="seconds for each wait")
    ap.add_argument("--connector-cmd", default=None,
                    help="command that provides `run` and `offsets show` (default: the venv's binlog-cdc)")
    ap.add_argument("--scratch", type=Path, default=None, help="server directories (default: a temp dir, removed)")
    ap.add_argument("--format", choices=("json", "avro", "protobuf"), default="json",
                    help="avro (protobuf): Avro (Protobuf) keys/values through a test schema registry; events.jsonl "
                         "then holds {schema_id, avro_base64} as the harness's, plus avro_schemas.json "
                         "(protobuf_base64, protobuf_schemas.json)")
    ap.add_argument("--topic", action="append", default=[],
                    help="also create this topic up front, single-partition (a transform's target; repeatable)")
    ap.add_argument("--no-stream", action="store_true",
                    help="the snapshot mode does not stream: wait for the connector to exit after the snapshot")
    a = ap.parse_args(argv)
    cmd = tuple(shlex.split(a.connector_cmd)) if a.connector_cmd else default_connector_cmd()
    return RunOptions(a.workload, a.out_dir, a.server, tuple(a.prop), a.port, a.offsets, a.history, a.quiet_ms,
                      a.timeout, cmd, a.scratch, a.format, stream=not a.no_stream,
                      topics=tuple(a.topic))


def main(argv: list[str] | None = None) -> int:
    # SIGTERM/SIGHUP unwind through run_workload's finally: no server or connector is left behind
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda signum, frame: sys.exit(128 + signum))
    opts = parse_args(argv)
    try:
        result = run_workload(opts)
    except (RunError, ConnectorError, TimeoutError, OSError, RuntimeError) as e:
        _log(f"ERROR: {e}")
        _log(f"partial output in {opts.out_dir}")
        return 1
    info = result.info
    _log(f"{info['records']} records -> {result.out_dir}/events.jsonl ({json.dumps(info['by_kind'])})")
    for w in info["warnings"]:
        _log(f"WARNING: {w}")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
