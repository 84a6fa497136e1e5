"""The status file: a change is written at once (past the rate limit), an unchanged status only now and then.
Each check removes the file and looks whether the next write made it again (`flush` waits for the thread that
writes it). A forced write is in the file when it returns and no older one overwrites it."""
from __future__ import annotations

import json

import pytest

from connector.ops.status import StatusFile


def test_unchanged_status_is_not_rewritten_until_its_interval(tmp_path):
    path = tmp_path / "status.json"
    status = StatusFile(path, min_interval_s=0.0, unchanged_interval_s=3600)
    offset = {"pos": 4}
    status.write({"phase": "streaming", "committed_offset": offset})
    status.flush()
    path.unlink()
    status.write({"phase": "streaming", "committed_offset": dict(offset)})
    status.flush()
    assert not path.exists()  # same content: skipped
    offset["pos"] = 5  # mutated in place after it was written: still a change
    status.write({"phase": "streaming", "committed_offset": offset})
    status.flush()
    assert json.loads(path.read_text())["committed_offset"] == {"pos": 5}
    path.unlink()
    status.write({"phase": "streaming", "committed_offset": offset}, force=True)
    assert path.exists()


def test_unchanged_status_is_rewritten_after_its_interval_for_the_health_check(tmp_path):
    path = tmp_path / "status.json"
    status = StatusFile(path, min_interval_s=0.0, unchanged_interval_s=0.0)
    status.write({"phase": "streaming"})
    status.flush()
    path.unlink()
    status.write({"phase": "streaming"})
    status.close()
    assert "updated_at" in json.loads(path.read_text())
    assert path.stat().st_mode & 0o777 == 0o600


def test_a_forced_status_is_written_before_write_returns_and_stays(tmp_path):
    path = tmp_path / "status.json"
    status = StatusFile(path, min_interval_s=0.0, unchanged_interval_s=0.0)
    for n in range(200):  # background writes racing the forced one
        status.write({"phase": "streaming", "n": n})
    status.write({"phase": "stopped"}, force=True)
    assert json.loads(path.read_text())["phase"] == "stopped"
    status.close()
    assert json.loads(path.read_text())["phase"] == "stopped"


def test_a_background_write_that_failed_raises_from_the_next_write(tmp_path):
    status = StatusFile(tmp_path / "gone" / "status.json", min_interval_s=0.0, unchanged_interval_s=0.0)
    status.write({"phase": "streaming"})
    with pytest.raises(FileNotFoundError):
        status.flush()
    status.write({"phase": "streaming", "n": 1})
    status.close()
    with pytest.raises(FileNotFoundError):
        status.write({"phase": "streaming", "n": 2})
