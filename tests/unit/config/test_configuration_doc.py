"""docs/CONFIGURATION.md is the property declarations rendered, and `binlog-cdc properties` survives a closed pipe."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from connector.config.docs import configuration_markdown
from connector.config.fields import FIELDS
from connector.config.refusals import REFUSALS

DOC = Path(__file__).resolve().parents[3] / "docs" / "CONFIGURATION.md"


def test_the_committed_page_is_the_declarations_rendered():
    assert DOC.read_text(encoding="utf-8") == configuration_markdown(), (
        "docs/CONFIGURATION.md is stale: run `.venv/bin/binlog-cdc properties --markdown > docs/CONFIGURATION.md`")


def test_every_property_and_refusal_is_on_the_page():
    page = configuration_markdown()
    missing = [f.name for f in FIELDS if f"| `{f.name}`" not in page]
    missing += [r.pattern for r in REFUSALS if r.pattern.replace("|", "\\|") not in page]
    assert not missing


def test_properties_into_a_pipe_closed_early_is_no_error():
    # `binlog-cdc properties | head` used to end in "internal error: BrokenPipeError" and exit 4
    script = Path(sys.executable).parent / "binlog-cdc"
    cmd = [str(script)] if script.exists() else [sys.executable, "-m", "connector.cli"]
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the first write: every write meets a broken pipe
    try:
        proc = subprocess.run([*cmd, "properties"], stdout=write_end, stderr=subprocess.PIPE,
                              stdin=subprocess.DEVNULL, timeout=60)
    finally:
        os.close(write_end)
    assert proc.returncode == 0, proc.stderr.decode()
    assert b"internal error" not in proc.stderr, proc.stderr.decode()
