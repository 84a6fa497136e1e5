#!/usr/bin/env python3
"""Diff a run's output against a golden directory (both in the reference harness's layout).

    compare.py GOLDEN_DIR ACTUAL_DIR [--max 5] [--skip offsets,history]

Compared, after masking run-dependent values (normalize.py):
* events.jsonl per topic, order kept within each topic (Kafka keeps no cross-topic order):
  topic, key, value and headers of each record, with key order significant. `seq`,
  `kafkaPartition`, `sourcePartition` and `sourceOffset` are not observable on Kafka and
  are ignored (the offsets are compared through offsets.json instead); `source.thread`
  (a server-assigned connection id) is compared by rank unless --exact-threads;
* offsets.json (the committed offsets);
* schema_history.jsonl (one document per line).
A file absent from the golden directory is not compared (a run Debezium aborted has no
offsets.json); `present_sections` says what was.
Prints the first mismatches readably and exits 1 if there are any.
"""
from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `tests.conformance` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.conformance.normalize import normalize_events, normalize_history, normalize_offsets  # noqa: E402

COMPARED_FIELDS = ("topic", "key", "value", "headers")
SECTIONS = ("events", "offsets", "history")


@dataclass(frozen=True)
class Mismatch:
    where: str     # e.g. "events[dbserver1.inventory.customers][3] (golden seq 17)"
    path: str      # JSON path of the first difference inside that item
    golden: Any
    actual: Any

    def render(self, width: int = 300) -> str:
        def short(v: Any) -> str:
            s = json.dumps(v, ensure_ascii=False) if not isinstance(v, _Missing) else "<missing>"
            return s if len(s) <= width else s[:width] + f"... ({len(s)} chars)"
        return f"{self.where} at {self.path or '<root>'}:\n  golden: {short(self.golden)}\n  actual: {short(self.actual)}"


class _Missing:
    def __repr__(self) -> str:
        return "<missing>"


MISSING = _Missing()


def first_difference(a: Any, b: Any, path: str = "") -> tuple[str, Any, Any] | None:
    """Path and values of the first difference between two JSON values (dict key order counts)."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in list(dict.fromkeys([*a, *b])):
            d = first_difference(a.get(k, MISSING), b.get(k, MISSING), f"{path}.{k}")
            if d:
                return d
        if list(a) != list(b):
            return f"{path} (key order)", list(a), list(b)
        return None
    if isinstance(a, list) and isinstance(b, list):
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_difference(x, y, f"{path}[{i}]")
            if d:
                return d
        if len(a) != len(b):
            return f"{path} (length {len(a)} vs {len(b)})", a[len(b):] or len(a), b[len(a):] or len(b)
        return None
    if type(a) is not type(b) or a != b:  # 1 != 1.0 and True != 1 on the wire
        return path, a, b
    return None


def read_jsonl(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def by_topic(events: list[dict], partitions: bool = False) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for e in events:
        out.setdefault(f"{e['topic']}[{e.get('kafkaPartition') or 0}]" if partitions else e["topic"], []).append(e)
    return out


def relabel_threads(events: list[dict]) -> list[dict]:
    """Replace `source.thread` by its rank among the run's distinct thread ids.

    Thread ids are connection ids handed out by the server, so their absolute values count
    every connection made before the workload's (the harness's, the connector's). Ranks
    still catch a record attributed to the wrong session. Works on normalised copies."""
    def source(e: dict) -> dict | None:
        v = e.get("value")
        p = v.get("payload") if isinstance(v, dict) else None
        src = p.get("source") if isinstance(p, dict) else None
        return src if isinstance(src, dict) else None

    ids = sorted({src["thread"] for e in events if (src := source(e)) and isinstance(src.get("thread"), int)})
    rank = {t: f"<thread-{i}>" for i, t in enumerate(ids, start=1)}
    for e in events:
        src = source(e)
        if src and src.get("thread") in rank:
            src["thread"] = rank[src["thread"]]
    return events


def compare_events(golden: list[dict], actual: list[dict], limit: int, exact_threads: bool = False,
                   partitions: bool = False) -> list[Mismatch]:
    """Per topic (per topic partition with `partitions`: a golden whose transforms pick partitions), in order."""
    g_norm, a_norm = normalize_events(golden), normalize_events(actual)
    if not exact_threads:
        g_norm, a_norm = relabel_threads(g_norm), relabel_threads(a_norm)
    g_topics, a_topics = by_topic(g_norm, partitions), by_topic(a_norm, partitions)
    out: list[Mismatch] = []
    for topic in sorted(set(g_topics) | set(a_topics)):
        g, a = g_topics.get(topic, []), a_topics.get(topic, [])
        if len(g) != len(a):
            out.append(Mismatch(f"events[{topic}]", "(record count)", len(g), len(a)))
        for i, (x, y) in enumerate(zip(g, a)):
            d = first_difference({k: x.get(k) for k in COMPARED_FIELDS}, {k: y.get(k) for k in COMPARED_FIELDS})
            if d:
                out.append(Mismatch(f"events[{topic}][{i}] (golden seq {x.get('seq')}, actual seq {y.get('seq')})",
                                    *d))
                if len([m for m in out if m.where.startswith(f"events[{topic}]")]) >= limit:
                    break
    return out


def compare_documents(what: str, golden: Any, actual: Any) -> list[Mismatch]:
    d = first_difference(golden, actual)
    return [Mismatch(what, *d)] if d else []


def compare_dirs(golden_dir: str | Path, actual_dir: str | Path, limit: int = 5,
                 skip: tuple[str, ...] = (), exact_threads: bool = False, partitions: bool = False) -> list[Mismatch]:
    """All mismatches (at most `limit` per topic) between two output directories."""
    g, a = Path(golden_dir), Path(actual_dir)
    out: list[Mismatch] = []
    for section, name in (("events", "events.jsonl"), ("offsets", "offsets.json"), ("history", "schema_history.jsonl")):
        if section in skip or not (g / name).exists():  # e.g. a golden of a run that Debezium aborted
            continue
        if not (a / name).exists():
            out.append(Mismatch(name, "(file)", "present", MISSING))
            continue
        if section == "events":
            out += compare_events(read_jsonl(g / name), read_jsonl(a / name), limit, exact_threads, partitions)
        elif section == "offsets":
            out += compare_documents(name, normalize_offsets(json.loads((g / name).read_text(encoding="utf-8"))),
                                     normalize_offsets(json.loads((a / name).read_text(encoding="utf-8"))))
        else:
            gh, ah = normalize_history(read_jsonl(g / name)), normalize_history(read_jsonl(a / name))
            if len(gh) != len(ah):
                out.append(Mismatch(name, "(document count)", len(gh), len(ah)))
            out += [Mismatch(f"{name}[{i}]", *d) for i, (x, y) in enumerate(zip(gh, ah))
                    if (d := first_difference(x, y))][:limit]
    return out


def present_sections(golden_dir: str | Path) -> list[str]:
    g = Path(golden_dir)
    return [s for s, n in (("events", "events.jsonl"), ("offsets", "offsets.json"),
                           ("history", "schema_history.jsonl")) if (g / n).exists()]


def report(mismatches: list[Mismatch], shown: int = 10) -> str:
    if not mismatches:
        return "identical (after masking)"
    lines = [f"{len(mismatches)} mismatch(es); first {min(shown, len(mismatches))}:"]
    lines += [m.render() for m in mismatches[:shown]]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("golden_dir")
    ap.add_argument("actual_dir")
    ap.add_argument("--max", type=int, default=5, help="mismatches listed per topic / file")
    ap.add_argument("--show", type=int, default=20, help="mismatches printed in total")
    ap.add_argument("--exact-threads", action="store_true",
                    help="compare source.thread values as they are, not by rank (see relabel_threads)")
    ap.add_argument("--skip", default="", help=f"comma-separated sections to skip: {', '.join(SECTIONS)}")
    args = ap.parse_args(argv)
    skip = tuple(s for s in args.skip.split(",") if s)
    unknown = set(skip) - set(SECTIONS)
    if unknown:
        ap.error(f"unknown section(s) {sorted(unknown)}; choose from {', '.join(SECTIONS)}")
    mismatches = compare_dirs(args.golden_dir, args.actual_dir, args.max, skip, args.exact_threads)
    compared = [s for s in present_sections(args.golden_dir) if s not in skip]
    print(f"compared: {', '.join(compared)}")
    print(report(mismatches, args.show))
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
