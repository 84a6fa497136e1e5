#!/usr/bin/env python3
"""Reading a snapshot's rows: CPU per row of the client, PyMySQL's text protocol against the C driver mysqlclient.

    .venv/bin/python bench/snapshot_drivers.py [--rows 300000] [--repeat 3] [--c-python /path/to/python]

One private MariaDB holds `--rows` rows of bench/snapshot.py's 12-column table; each way below reads all of them
through an unbuffered (server-side) cursor in batches of 1000 and reports the reading process's CPU µs per row
(best of `--repeat`; /proc time, so a loaded machine inflates every way alike):

* `pymysql_decoded`: PyMySQL's `SSCursor.fetchmany`, every value decoded to its Python type;
* `pymysql_raw`: the connector's snapshot path (snapshot/raw_rows.py `fetch_raw`): PyMySQL reads the packets,
  each row is split into its raw values, nothing decoded (the compiled writer turns them into JSON text);
* `mysqlclient_decoded` / `mysqlclient_raw`: mysqlclient's `SSCursor.fetchmany` with its default converters, and
  with none (`conv={}`: every value as the server's text, as the raw path needs). mysqlclient is not a dependency:
  it runs under `--c-python`, a Python with `mysqlclient` installed (skipped without one).

The last line is one JSON object: {"rows": ..., "us_per_row": {"pymysql_raw": ..., ...}}.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

# Runs in the reading process, in the venv of this tree or under --c-python; argv: way, port, user, password, repeat
READER = r'''
import sys, time
way, port, user, password, repeat = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], int(sys.argv[5])
if way.startswith("mysqlclient"):
    import MySQLdb, MySQLdb.cursors
    def connect():
        kwargs = {"conv": {}} if way.endswith("raw") else {}
        return MySQLdb.connect(host="127.0.0.1", port=port, user=user, password=password, charset="utf8mb4",
                               cursorclass=MySQLdb.cursors.SSCursor, **kwargs)
    fetch = lambda cur: cur.fetchmany(1000)
else:
    import pymysql, pymysql.cursors
    def connect():
        return pymysql.connect(host="127.0.0.1", port=port, user=user, password=password, charset="utf8mb4",
                               cursorclass=pymysql.cursors.SSCursor)
    if way.endswith("raw"):
        from snapshot.raw_rows import fetch_raw
        fetch = lambda cur: fetch_raw(cur, 1000)
    else:
        fetch = lambda cur: cur.fetchmany(1000)
best = None
for _ in range(repeat):
    conn = connect()
    cur = conn.cursor()
    t0 = time.process_time()
    cur.execute("SELECT * FROM bench.t")
    n = 0
    while True:
        rows = fetch(cur)
        if not rows:
            break
        n += len(rows)
    cpu = time.process_time() - t0
    cur.close(); conn.close()
    best = cpu if best is None else min(best, cpu)
print(n, best)
'''


def read(python: str, way: str, port: int, user: str, password: str, repeat: int) -> tuple[int, float]:
    out = subprocess.run([python, "-c", READER, way, str(port), user, password, str(repeat)], cwd=ROOT,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, check=True)
    n, cpu = out.stdout.split()
    return int(n), float(cpu)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=300_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--c-python", help="a Python with mysqlclient installed (e.g. a throwaway venv)")
    args = parser.parse_args()
    from bench.snapshot import load
    from tests.support.servers import MariaDBServer, Profile

    ways = [("pymysql_decoded", sys.executable), ("pymysql_raw", sys.executable)]
    if args.c_python:
        ways += [("mysqlclient_decoded", args.c_python), ("mysqlclient_raw", args.c_python)]
    result: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="bench-snapshot-drivers-") as tmp:
        with MariaDBServer(Path(tmp) / "db", profile=Profile.DEFAULTS) as server:
            t0 = time.perf_counter()
            load(server, args.rows)
            print(f"loaded {args.rows} rows in {time.perf_counter() - t0:.1f} s", flush=True)
            for way, python in ways:
                n, cpu = read(python, way, server.port, server.user, server.password, args.repeat)
                assert n == args.rows, (way, n)
                result[way] = round(cpu / n * 1e6, 2)
                print(f"{way}: {result[way]} µs CPU per row", flush=True)
    print(json.dumps({"rows": args.rows, "us_per_row": result, "load_avg_1m": os.getloadavg()[0]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
