"""Container health check: is the connector's status file fresh and the connector not stopped?

    python healthcheck.py STATUS_FILE [--max-age SECONDS]

`binlog-cdc run CONFIG --status-file STATUS_FILE` rewrites the file (JSON with at least
`"phase": "snapshot" | "streaming" | "stopped"` and `"updated_at"`) every few seconds while it runs. Exit status 0 =
healthy, 1 = unhealthy, with one line saying why (Docker keeps it in `docker inspect`). Standard
library only: it runs in the runtime image, which has nothing else to spare.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

HEALTHY_PHASES = frozenset({"snapshot", "streaming"})
DEFAULT_MAX_AGE_S = 60.0


def check(path: Path, max_age_s: float, now: float) -> str | None:
    """None when healthy, otherwise the reason."""
    try:
        age = now - path.stat().st_mtime
        status = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return f"{path} does not exist (the connector has not started, or --status-file points elsewhere)"
    except (OSError, ValueError) as exc:
        return f"{path} is unreadable: {exc}"
    if not isinstance(status, dict):
        return f"{path} does not hold a JSON object"
    # connector/ops/status.py stamps every write with `updated_at` (epoch seconds); the file's mtime
    # is the fallback for writers that do not.
    if isinstance(status.get("updated_at"), (int, float)):
        age = now - status["updated_at"]
    if age > max_age_s:
        return f"{path} was last written {age:.0f} s ago (limit {max_age_s:.0f} s): the connector is stuck or gone"
    phase = status.get("phase")
    if phase not in HEALTHY_PHASES:
        return f"connector phase is {phase!r}"
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("status_file", type=Path)
    parser.add_argument("--max-age", type=float, default=DEFAULT_MAX_AGE_S,
                        help=f"seconds since the last rewrite before the connector counts as stuck "
                             f"(default {DEFAULT_MAX_AGE_S:.0f})")
    args = parser.parse_args(argv)
    problem = check(args.status_file, args.max_age, time.time())
    if problem:
        print(f"unhealthy: {problem}")
        return 1
    print("healthy")
    return 0


if __name__ == "__main__":
    sys.exit(main())
