#!/usr/bin/env python3
"""CPU per row of the snapshot's temporal conversion alone, no servers: bench/snapshot.py's two temporal columns
(`created` DATETIME(6), `updated` TIMESTAMP, null in one row of five) as the server's text through their
converters' `from_snapshot`, process CPU time, best of `--repeat`.

    .venv/bin/python bench/snapshot_temporal.py [--rows 100000] [--repeat 5] [--root DIR]

`--root DIR` imports the `connector` package of another source tree (e.g. `git archive <commit> | tar -x -C DIR`),
to compare with this one back to back.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1])
    args = parser.parse_args()
    sys.path.insert(0, str(args.root.resolve()))
    from connector.converters import temporal
    from connector.converters.base import ValueSettings
    from schema_history.model import Column

    settings = ValueSettings()
    created = temporal.datetime_(Column("created", 5, 93, "DATETIME", "DATETIME(6)", length=6), settings).from_snapshot
    updated = temporal.timestamp(Column("updated", 6, 2014, "TIMESTAMP", "TIMESTAMP", length=0), settings).from_snapshot
    # the same values as bench/snapshot.py's `_row(i)`
    rows = [(f"2024-01-{i % 28 + 1:02d} 12:{i % 60:02d}:00.{i % 1000000:06d}",
             None if i % 5 == 0 else f"2024-02-{i % 28 + 1:02d} 01:02:03") for i in range(1, args.rows + 1)]
    best = float("inf")
    for _ in range(args.repeat):
        t0 = time.process_time()
        for created_text, updated_text in rows:
            created(created_text)
            if updated_text is not None:
                updated(updated_text)
        best = min(best, time.process_time() - t0)
    print(f"{Path(temporal.__file__).parents[2]}: {best / args.rows * 1e6:.2f} µs per row (CPU, best of {args.repeat})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
