#!/usr/bin/env python3
"""What a process pipeline (read + decode | build + serialize in N workers | produce) would pay per row change
to move work between processes, measured on this machine; no servers.

    .venv/bin/python bench/pipeline_ipc.py [--rows 20000] [--repeat 3]

Rows have the shape of `bench/streaming.py`'s 12-column table as the rows decoder gives them (int, str,
Decimal, datetime, JSON text, bytes, float), each row its own objects (pickle memoizes shared ones). Per row,
best of `--repeat` (CPU µs of this process):
- out: pickling decoded rows in 1000-row batches (the reader's side) and unpickling them (a worker's);
- back: pickling the worker's (key, value) records of ~4 KB (JsonConverter with schemas) and unpickling them;
- pipe: one 1000-record batch through a `multiprocessing` pipe and back, the sender's CPU.
Compare the sum with the connector's CPU per row change (`bench/streaming.py` prints it) and with what would
move to the workers (`bench/dispatch.py`, stream_s / rows). The last line is one JSON object.
"""
from __future__ import annotations

import argparse
import datetime
import json
import pickle
import sys
import time
from decimal import Decimal
from multiprocessing import Pipe, Process
from multiprocessing.connection import Connection
from typing import Callable

BATCH = 1000
VALUE_BYTES = 4200  # one record's value with schemas.enable=true for this table


def decoded_row(i: int) -> list:
    created = datetime.datetime(2024, 1, 1 + i % 28, 12, 0, 0, i % 10**6)
    return [i, 98765 + i, f"name-{i}", Decimal(f"{i}.{i % 100:02d}"), created, 1706781600 + i, f'{{"k": {i}, "tags": ["a", "b"]}}', f"note {i} " + "x" * (i % 50), "open", i / 7,
            i % 2, i.to_bytes(4, "little") + b"\xde\xad\xbe\xef"]


def record(i: int) -> tuple[bytes, bytes]:
    return (b'{"schema":{"type":"struct","fields":[{"type":"int64","optional":false,"field":"id"}],"optional":false,'
            b'"name":"bench.bench.events.Key"},"payload":{"id":' + str(i).encode() + b"}}",
            str(i).encode() + b"v" * VALUE_BYTES)


def per_row_us(fn: Callable[[], object], batches: int, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.process_time()
        for _ in range(batches):
            fn()
        best = min(best, time.process_time() - t0)
    return best / (batches * BATCH) * 1e6


def echo(conn: Connection) -> None:
    """The stand-in worker: answers every batch with a short message; ends at EOF or an empty batch."""
    try:
        while conn.recv_bytes():
            conn.send_bytes(b"k")
    except EOFError:
        pass


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    batches = max(1, args.rows // BATCH)
    rows = [(None, decoded_row(i)) for i in range(BATCH)]
    records = [record(i) for i in range(BATCH)]
    rows_blob, records_blob = pickle.dumps(rows, 5), pickle.dumps(records, 5)
    out = {
        "rows_dumps_us": per_row_us(lambda: pickle.dumps(rows, 5), batches, args.repeat),
        "rows_loads_us": per_row_us(lambda: pickle.loads(rows_blob), batches, args.repeat),
        "records_dumps_us": per_row_us(lambda: pickle.dumps(records, 5), batches, args.repeat),
        "records_loads_us": per_row_us(lambda: pickle.loads(records_blob), batches, args.repeat),
    }
    here, there = Pipe()
    worker = Process(target=echo, args=(there,), daemon=True)
    worker.start()
    try:
        def round_trip() -> None:
            here.send_bytes(records_blob)
            here.recv_bytes()
        out["pipe_us"] = per_row_us(round_trip, batches, args.repeat)
    finally:
        here.send_bytes(b"")
        worker.join(10)
    # The reader's process: pickles rows, unpickles records, moves both through pipes.
    out["reader_side_us"] = out["rows_dumps_us"] + out["records_loads_us"] + 2 * out["pipe_us"]
    out["worker_side_us"] = out["rows_loads_us"] + out["records_dumps_us"] + 2 * out["pipe_us"]
    for name, value in out.items():
        print(f"{name:18s} {value:6.2f} µs per row change")
    print(json.dumps({k: round(v, 2) for k, v in out.items()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
