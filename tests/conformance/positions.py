"""Binlog positions → event ordinals, for runs whose byte positions cannot be reproduced.

With `binlog_transaction_compression=ON` each transaction is a zstd payload whose size depends on
its content, including timestamps and thread ids, so two servers running the same workload write
the same events at slightly different byte positions. What must still agree is *which* event every
position names. `by_event(run_dir, binlog_dir, out_dir)` copies a run's events.jsonl, offsets.json and
schema_history.jsonl, with every `{"file": F, "pos": P}` pair's P replaced by "event#N": N is the index
of the event boundary at P in F (0 is the first event after the magic number; the end of the file
counts as a boundary). A position that is not a boundary is kept as "pos#P", so it still differs.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

_MAGIC = 4


def boundaries(path: Path) -> dict[int, int]:
    """Event boundary positions of one binlog file → ordinal."""
    data = path.read_bytes()
    out: dict[int, int] = {}
    pos = _MAGIC
    while pos + 19 <= len(data):
        out[pos] = len(out)
        size = int.from_bytes(data[pos + 9:pos + 13], "little")
        if size < 19:
            break
        pos += size
    out[pos] = len(out)
    return out


def binlog_maps(binlog_dir: Path) -> dict[str, dict[int, int]]:
    """file name → boundary map, for every binlog file under `binlog_dir` (searched recursively)."""
    files = [p for p in binlog_dir.rglob("*-bin.[0-9]*") if p.is_file()]
    return {p.name: boundaries(p) for p in sorted(files)}


def translate(value: Any, maps: dict[str, dict[int, int]]) -> Any:
    if isinstance(value, list):
        return [translate(v, maps) for v in value]
    if not isinstance(value, dict):
        return value
    out = {k: translate(v, maps) for k, v in value.items()}
    file, pos = out.get("file"), out.get("pos")
    if isinstance(file, str) and isinstance(pos, int) and file in maps:
        ordinal = maps[file].get(pos)
        out["pos"] = f"event#{ordinal}" if ordinal is not None else f"pos#{pos}"
    return out


def by_event(run_dir: Path, binlog_dir: Path, out_dir: Path) -> Path:
    maps = binlog_maps(binlog_dir)
    if not maps:
        raise FileNotFoundError(f"no binlog files under {binlog_dir}")
    out_dir.mkdir(parents=True, exist_ok=True)
    for name in ("events.jsonl", "schema_history.jsonl"):
        src = run_dir / name
        if src.exists():
            lines = [json.dumps(translate(json.loads(line), maps)) for line in src.read_text().splitlines() if line]
            (out_dir / name).write_text("".join(line + "\n" for line in lines))
    if (run_dir / "offsets.json").exists():
        offsets = translate(json.loads((run_dir / "offsets.json").read_text()), maps)
        (out_dir / "offsets.json").write_text(json.dumps(offsets, indent=2))
    for name in ("run_info.json", "engine.properties"):
        if (run_dir / name).exists():
            shutil.copy2(run_dir / name, out_dir / name)
    return out_dir
