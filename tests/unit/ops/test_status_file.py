"""The status file: a change is written at once (past the rate limit), an unchanged status only now and then.
Each check removes the file and looks whether the next write made it again."""
from __future__ import annotations

import json

from connector.ops.status import StatusFile


def test_unchanged_status_is_not_rewritten_until_its_interval(tmp_path):
    path = tmp_path / "status.json"
    status = StatusFile(path, min_interval_s=0.0, unchanged_interval_s=3600)
    offset = {"pos": 4}
    status.write({"phase": "streaming", "committed_offset": offset})
    path.unlink()
    status.write({"phase": "streaming", "committed_offset": dict(offset)})
    assert not path.exists()  # same content: skipped
    offset["pos"] = 5  # mutated in place after it was written: still a change
    status.write({"phase": "streaming", "committed_offset": offset})
    assert json.loads(path.read_text())["committed_offset"] == {"pos": 5}
    path.unlink()
    status.write({"phase": "streaming", "committed_offset": offset}, force=True)
    assert path.exists()


def test_unchanged_status_is_rewritten_after_its_interval_for_the_health_check(tmp_path):
    path = tmp_path / "status.json"
    status = StatusFile(path, min_interval_s=0.0, unchanged_interval_s=0.0)
    status.write({"phase": "streaming"})
    path.unlink()
    status.write({"phase": "streaming"})
    assert "updated_at" in json.loads(path.read_text())
    assert path.stat().st_mode & 0o777 == 0o600
