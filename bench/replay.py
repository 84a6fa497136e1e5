#!/usr/bin/env python3
"""The streaming path's CPU per row change on a real binlog, without Kafka: reader → loop → handler → dispatcher →
a sink that acknowledges at once, in one process per run (main-thread CPU seconds of the measured range only).

    .venv/bin/python bench/replay.py [--shape oltp|bulk] [--rows 200000] [--repeat 3] [--baseline DIR]

A private MariaDB gets bench/streaming.py's table and workload (`--shape oltp`: its transactions of UPDATE, UPDATE,
DELETE, INSERT on a pre-filled table; `bulk`: 1000-row INSERTs, single-row UPDATEs and DELETEs). Each run is a
fresh process that reads the binlog from its start (the CREATE TABLE is in it), skips the rows events before the
measured range, and times the range with `time.thread_time()`. With `--baseline DIR` the runs alternate between
this tree's `connector` package and DIR's (e.g. `git worktree add --detach /tmp/base <commit>`).

Why beside bench/streaming.py: without the broker, librdkafka's threads and the connector's start-up on the same
two cores, runs of the same tree agree within about 1% (end-to-end runs within about 5%), so a change of a few
per cent per row change shows in three pairs. What it leaves out: the Kafka writer (produce, delivery callbacks),
housekeeping's offset commits and status file. The last line is one JSON object.

`--stages`: each run also samples its main thread's stack on CPU time (`ITIMER_PROF`, every 4 ms of CPU on these
machines) inside the measured range, and the report splits each tree's µs per row change into bench/stages.py's
stages (a sample goes to the stage of its innermost frame in a known module).
"""
from __future__ import annotations

import argparse
import collections
import importlib.util
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Sequence

if TYPE_CHECKING:  # the worker imports `connector` from the tree it runs, after setting its path
    from connector.kafka.writer import OutRecord

ROOT = Path(__file__).resolve().parents[1]


def worker(args: argparse.Namespace) -> int:
    """One run in this process, with the `connector` package of `args.tree`."""
    sys.path[:0] = [str(args.tree), str(ROOT)]
    from connector.binlog.reader import BinlogReader, ConnectionParams
    from connector.binlog.wire_events import COMMIT_EVENTS, WireRows
    from connector.config.table_filter import TableFilter
    from connector.daemon import table_schema_builder
    from connector.dispatch.dispatcher import Dispatcher
    from connector.offsets.position import BinlogPosition, SourceOffset
    from connector.offsets.tracker import OffsetTracker
    from connector.schema.tracker import SchemaTracker
    from connector.shutdown import ShutdownToken
    from connector.streaming.handler import StreamingHandler
    from connector.streaming.loop import StreamingLoop
    from connector.streaming.source import streaming_state
    from schema_history.stores.memory import MemoryHistoryStore
    from pymysqlreplication.row_event import RowsEvent
    from tests.unit.streaming.scripted import settings
    # this script's stage table for either tree (the tree's own bench/ may be older)
    spec = importlib.util.spec_from_file_location("replay_stages", ROOT / "bench" / "stages.py")
    assert spec is not None and spec.loader is not None
    stages_module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(stages_module)
    stage_of = stages_module.stage_of

    rows_events = (WireRows, RowsEvent)

    first_file, first_pos = args.start.split(":")
    end = (args.end.split(":")[0], int(args.end.split(":")[1]))
    start = (first_file, int(first_pos))
    params = ConnectionParams("127.0.0.1", args.port, args.user, args.password)
    s = settings(**{"database.include.list": "bench"})
    table_filter = TableFilter(s.filters)
    sink = AckingSink()
    dispatcher = Dispatcher(s, SchemaTracker(s, table_filter, MemoryHistoryStore()), table_schema_builder(s), sink,
                            OffsetTracker(), table_filter)
    handler = StreamingHandler(streaming_state(SourceOffset(first_file, 4), None), dispatcher, use_gtids=False,
                               is_mariadb=True, provide_transaction_metadata=False)
    token = ShutdownToken()
    measured: dict[str, float] = {}
    samples: collections.Counter[tuple[str, ...]] = collections.Counter()

    def sample(signum: int, frame: Any) -> None:
        stack = []
        while frame is not None:
            stack.append(f"{frame.f_code.co_name} ({frame.f_code.co_filename}:{frame.f_lineno})")
            frame = frame.f_back
        samples[tuple(reversed(stack))] += 1

    def sampling(on: bool) -> None:
        if args.stages:
            signal.signal(signal.SIGPROF, sample if on else signal.SIG_IGN)
            signal.setitimer(signal.ITIMER_PROF, 0.001 if on else 0, 0.001 if on else 0)

    class RangeReader:
        """The binlog from its start; rows events before the range dropped, the stream ended after it."""

        def __init__(self) -> None:
            self.reader = BinlogReader(params, 7790, BinlogPosition(first_file, 4), heartbeat_interval_s=1.0)
            self.file, self.next_pos = first_file, 4

        def open(self) -> None:
            self.reader.open()

        def close(self) -> None:
            self.reader.close()

        def has_pending(self) -> bool:
            return self.reader.has_pending()

        def socket(self) -> object:
            return self.reader.socket()

        def events(self) -> Any:
            for pe in self.reader.events():
                if (pe.file, pe.start) < start:
                    if not isinstance(pe.event, rows_events):
                        yield pe  # the DDL and the transactions' other events still pass
                    continue
                if "cpu" not in measured:
                    sampling(True)
                    measured["cpu"] = time.thread_time()
                    measured["records"] = sink.records
                yield pe
                if type(pe.event) in COMMIT_EVENTS and (pe.file, pe.next_pos) >= end:
                    break
            measured["cpu"] = time.thread_time() - measured["cpu"]
            sampling(False)
            token.request()

    StreamingLoop(handler, RangeReader, token, housekeeping=dispatcher.flush_held, idle=dispatcher.idle,
                  holding=dispatcher.holding).run()
    dispatcher.drain()
    stages: collections.Counter[str] = collections.Counter()
    for stack, count in samples.items():
        stages[stage_of(list(stack))] += count
    print(json.dumps({"cpu_s": measured["cpu"], "records": sink.records - measured["records"], "stages": stages}))
    return 0


class AckingSink:
    """Acknowledges every record at once; counts them (bench/row_path.py's sink too)."""

    def __init__(self) -> None:
        self.records = 0

    def send(self, record: OutRecord, on_ack: Callable[[], None]) -> None:
        self.records += 1
        on_ack()

    def send_group(self, records: Sequence[OutRecord], on_ack: Callable[[], None]) -> None:
        self.records += len(records)
        on_ack()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shape", choices=("oltp", "bulk"), default="oltp")
    parser.add_argument("--rows", type=int, default=200_000, help="row changes in the measured range")
    parser.add_argument("--repeat", type=int, default=3, help="runs per tree (the median is reported)")
    parser.add_argument("--baseline", type=Path, metavar="DIR", help="also run DIR's connector, alternating")
    parser.add_argument("--stages", action="store_true", help="split the CPU per row change into stages (sampled)")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    for name in ("tree", "start", "end", "user", "password"):
        parser.add_argument(f"--{name}", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return worker(args)

    sys.path.insert(0, str(ROOT))
    from bench.streaming import TABLE, oltp_sql, workload_sql
    from tests.support.servers import MariaDBServer, Profile

    trees = {"current": ROOT, **({"baseline": args.baseline.resolve()} if args.baseline else {})}
    with tempfile.TemporaryDirectory(prefix="bench-replay-") as tmp:
        with MariaDBServer(Path(tmp) / "db", profile=Profile.DEFAULTS) as server:
            server.run_sql("CREATE DATABASE bench;")
            server.run_sql("SET GLOBAL innodb_flush_log_at_trx_commit = 2;")  # the load is not measured
            server.run_sql(TABLE + ";")
            if args.shape == "oltp":
                server.run_sql(workload_sql(max(4, args.rows // 4))[0], what="oltp preload")
            start = server.binlog_position()
            print(f"loading {args.rows} row changes ({args.shape}) ...", flush=True)
            server.run_sql((oltp_sql if args.shape == "oltp" else workload_sql)(args.rows)[0], what="workload")
            end = server.binlog_position()
            runs: dict[str, list[dict[str, Any]]] = {kind: [] for kind in trees}
            for _ in range(args.repeat):
                for kind, tree in trees.items():
                    out = subprocess.run(
                        [sys.executable, __file__, "--worker", "--tree", str(tree), "--port", str(server.port),
                         "--user", server.user, "--password", server.password, "--start", "%s:%d" % start,
                         "--end", "%s:%d" % end, *(["--stages"] if args.stages else [])],
                        capture_output=True, text=True, check=True,
                        env={**os.environ, "PYTHONPATH": ""})
                    run = json.loads(out.stdout.strip().splitlines()[-1])
                    runs[kind].append(run)
                    print(f"{kind}: {run['cpu_s']:.3f} CPU-s, {run['cpu_s'] / args.rows * 1e6:.2f} µs per row "
                          f"change ({run['records']} records)", flush=True)
    result: dict[str, Any] = {"shape": args.shape, "rows": args.rows, "load_avg_1m": os.getloadavg()[0]}
    for kind, r in runs.items():
        result[f"{kind}_us_per_row_change"] = round(statistics.median(x["cpu_s"] for x in r) / args.rows * 1e6, 2)
        if args.stages:  # each stage's share of all the runs' samples, times the median CPU per row change
            counts: collections.Counter[str] = collections.Counter()
            for x in r:
                counts.update(x["stages"])
            total = sum(counts.values()) or 1
            result[f"{kind}_us_per_stage"] = {stage: round(n / total * result[f"{kind}_us_per_row_change"], 2)
                                              for stage, n in counts.most_common()}
    if "baseline" in runs:
        result["speedup_cpu"] = round(result["baseline_us_per_row_change"] / result["current_us_per_row_change"], 3)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
