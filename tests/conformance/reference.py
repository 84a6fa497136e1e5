"""The real-Debezium reference harness (shared, read-only), run live when it is present.

It lives next to the repository (`../shared/reference`) or where $DBZ_REFERENCE_DIR says.
Live runs matter for MySQL: Debian sid moves, so a golden recorded with yesterday's MySQL
may not be what Debezium emits with today's.
"""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.support.ports import free_port
from tests.support.shared import REFERENCE as SHARED_REFERENCE



def reference_dir() -> Path | None:
    candidate = SHARED_REFERENCE
    return candidate if (candidate / "run_reference.py").exists() else None


class ReferenceError(RuntimeError):
    """The harness failed; the message holds the end of its log."""


def run_reference(workload: Path, out_dir: Path, server: str, scratch: Path, props: tuple[str, ...] = (),
                  timeout: float = 900, copy_binlog: bool = False) -> dict:
    """Run the harness into `out_dir` on a free port and a private work dir; return its run_info."""
    ref = reference_dir()
    if ref is None:
        raise ReferenceError("reference harness not found (set DBZ_REFERENCE_DIR)")
    argv = ["bash", str(ref / "run_reference.sh"), str(workload), str(out_dir), "--server", server,
            "--port", str(free_port()), "--workdir", str(scratch / f"ref-{server}-db")]
    if not copy_binlog:  # OUT_DIR/binlog/ is only needed to compare positions by event (positions.py)
        argv.append("--no-binlog-copy")
    for p in props:
        argv += ["--prop", p]
    log = out_dir.parent / f"{out_dir.name}.harness.log"
    with open(log, "w") as f:
        r = subprocess.run(argv, stdout=f, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, timeout=timeout)
    if r.returncode != 0:
        raise ReferenceError(f"reference harness failed (rc={r.returncode}):\n{log.read_text()[-3000:]}")
    return json.loads((out_dir / "run_info.json").read_text())
