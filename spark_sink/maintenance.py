"""Table maintenance: compaction and removal of unreferenced files, so a long-running mirror does not drown in the
small files every micro-batch's MERGE leaves (Delta tables written with ``deltalake``).

On a schedule, from the mirror (``--optimize-every N``: after every N-th batch, each table the batch touched, and
its history; ``--vacuum-retention HOURS`` adds the cleanup), or as a command over every Delta table under a root::

    python -m spark_sink.maintenance --target /lake/inventory --vacuum-retention 168

Compaction (``OPTIMIZE``) rewrites small files into larger ones in a commit of its own; readers and the mirror see
the same rows. Vacuum deletes files no table version younger than the retention refers to: time travel to older
versions ends there (Delta's default retention, 168 h, is enforced unless a retention is given explicitly).
"""

from __future__ import annotations

import argparse
import logging
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

__all__ = ["Maintenance", "maintain", "delta_tables", "main"]

logger = logging.getLogger("spark_sink.maintenance")


@dataclass(frozen=True)
class Maintenance:
    """When and what: compaction every `optimize_every` batches (0: never), then vacuum if a retention is set."""

    optimize_every: int = 0
    vacuum_retention_hours: float | None = None

    def due(self, batch_id: int) -> bool:
        return self.optimize_every > 0 and (batch_id + 1) % self.optimize_every == 0


def maintain(path: str, vacuum_retention_hours: float | None,
             storage_options: Mapping[str, str] | None = None) -> tuple[int, int]:
    """Compact the Delta table at `path`, then vacuum it if a retention is given: (files compacted, files deleted)."""
    from deltalake import DeltaTable
    table = DeltaTable(path, storage_options=dict(storage_options or {}) or None)
    metrics = table.optimize.compact()
    deleted: list[str] = []
    if vacuum_retention_hours is not None:
        table = DeltaTable(path, storage_options=dict(storage_options or {}) or None)
        deleted = table.vacuum(retention_hours=int(vacuum_retention_hours), dry_run=False,
                               enforce_retention_duration=False)
    logger.info("maintenance of %s: %s files compacted into %s, %d unreferenced files deleted", path,
                metrics.get("numFilesRemoved", 0), metrics.get("numFilesAdded", 0), len(deleted))
    return int(metrics.get("numFilesRemoved", 0)), len(deleted)


def delta_tables(root: str | Path) -> list[Path]:
    """Every Delta table under `root` (a directory holding ``_delta_log``), history tables included."""
    return sorted(p.parent for p in Path(root).rglob("_delta_log") if p.is_dir())


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="spark_sink.maintenance", description=__doc__.split("\n")[0])
    p.add_argument("--target", required=True, help="root directory of the mirrored tables (as the mirror's)")
    p.add_argument("--vacuum-retention", type=float, metavar="HOURS",
                   help="also delete files unreferenced for HOURS (without it: compaction only)")
    args = p.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    tables = delta_tables(args.target)
    if not tables:
        logger.error("no Delta table under %s. Fix: pass the mirror's --target", args.target)
        return 2
    for path in tables:
        maintain(str(path), args.vacuum_retention)
    return 0


if __name__ == "__main__":
    sys.exit(main())
