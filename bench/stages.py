#!/usr/bin/env python3
"""Main-thread CPU per row change per stage, from a py-spy `--format raw` profile of the connector.

    .venv/bin/python bench/stages.py PROFILE.txt --rows N --main-cpu-s S

py-spy samples the stacks at a fixed rate; each sample of the main thread is charged to the stage of its innermost
frame that belongs to a known module (the table below, first match wins), so pymysql's socket read inside the
packet feed counts as `read`, the JSON writer inside the dispatcher as `encode`. The stage's share of the main
thread's samples times the main thread's CPU seconds (from /proc, `bench/streaming.py` prints them per thread)
divided by the row changes gives µs per row change. py-spy leaves out samples of a sleeping thread (record it
without `--idle`), so the shares are of the time the thread was running.
"""
from __future__ import annotations

import argparse
import collections
import json
import re
import sys
from pathlib import Path

# (stage, path fragment): checked against each frame's file, innermost frame first; the first frame with any
# match decides. Order matters inside one frame: the more specific fragment first.
STAGES: tuple[tuple[str, str], ...] = (
    ("read", "connector/binlog/packet_feed"), ("read", "connector/binlog/wire_events"),
    ("read", "connector/binlog/reader"), ("read", "pymysql/"), ("read", "pymysqlreplication/"),
    ("read", "socket.py"), ("read", "connector/binlog/table_map_cache"), ("read", "connector/binlog/payload"),
    ("decode", "connector/binlog/rows_decoder"), ("decode", "connector/binlog/image_compiler"),
    # generated per table version: the row image reader, the image writer, a struct's writer
    ("decode", "<row image of "), ("encode", "<image writer>"), ("encode", "<struct writer>"),
    ("image", "<image text>"),  # the fused row path's image bytes -> value text: decode, convert and encode in one
    ("handler", "connector/streaming/fused_bytes"),
    ("decode", "connector/binlog/value_decoders"), ("decode", "connector/binlog/json_"),
    ("read", "snapshot/raw_rows"), ("encode", "connector/events/snapshot_text"),
    ("convert", "connector/converters/"), ("convert", "connector/events/convert_compiler"),
    ("encode", "connector/serde/"), ("encode", "connector/events/image_writer"),
    ("encode", "connector/events/row_renderer"), ("encode", "connector/dispatch/fused_rows"),
    ("plan", "connector/events/"), ("plan", "connector/dispatch/row_records"), ("plan", "connector/schema/"),
    ("handler", "connector/streaming/handler"), ("handler", "connector/streaming/source"),
    ("handler", "connector/streaming/emitter"),
    ("kafka", "confluent_kafka"), ("kafka", "connector/kafka/"), ("kafka", "connector/dispatch/sender"),
    ("kafka", "connector/dispatch/pipelined_sender"), ("kafka", "connector/offsets/"),
    ("dispatch", "connector/dispatch/"),
    ("loop", "connector/streaming/"), ("loop", "connector/ops/"), ("loop", "connector/daemon"),
    ("loop", "connector/coordinator"), ("scan", "snapshot/"),
)
_FRAME = re.compile(r"\(([^()]*?):\d+\)$")


def stage_of(frames: list[str]) -> str:
    if any("importlib._bootstrap" in frame for frame in frames):
        return "startup"  # a cold start's imports (module code of any package)
    for frame in reversed(frames):  # innermost last in py-spy's raw format
        m = _FRAME.search(frame)
        path = m.group(1) if m else frame
        for stage, fragment in STAGES:
            if fragment in path:
                return stage
    return "other"


def main_thread_stages(profile: Path) -> collections.Counter[str]:
    """Samples per stage of the main thread (py-spy's `--threads` names it: `thread (TID): MainThread;...`)."""
    counts: collections.Counter[str] = collections.Counter()
    for line in profile.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        frames = stack.split(";")
        if count.isdigit() and frames[0].endswith(": MainThread"):
            counts[stage_of(frames[1:])] += int(count)
    return counts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("profile", type=Path)
    parser.add_argument("--rows", type=int, required=True, help="row changes the profiled run streamed")
    parser.add_argument("--main-cpu-s", type=float, required=True, help="the main thread's CPU seconds (/proc)")
    args = parser.parse_args()
    counts = main_thread_stages(args.profile)
    total = sum(counts.values()) or 1
    us = {stage: round(n / total * args.main_cpu_s / args.rows * 1e6, 1) for stage, n in counts.most_common()}
    for stage, value in us.items():
        print(f"{stage:10s} {value:7.1f} µs/row change ({counts[stage] / total:5.1%})")
    print(json.dumps({"main_thread_us_per_row_change": round(args.main_cpu_s / args.rows * 1e6, 1), "stages": us}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
