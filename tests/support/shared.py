"""Where `../shared` (the reference harness and its goldens) is: beside the checkout, wherever CI clones it.

`DBZ_REFERENCE_DIR` overrides the harness directory; nothing here assumes an absolute path.
"""
from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
REFERENCE = Path(os.environ.get("DBZ_REFERENCE_DIR") or REPO.parent / "shared" / "reference")
REFERENCE_EXPECTED = REFERENCE / "expected"
