"""docs/CONFIGURATION.md is the property declarations rendered, and `binlog-cdc properties` survives a closed pipe."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from connector.config.docs import configuration_markdown
from connector.config.fields import FIELDS
from connector.config.refusals import REFUSALS
from tests.support.waiting import PROCESS_BOUND_S

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
                              stdin=subprocess.DEVNULL, timeout=PROCESS_BOUND_S)
    finally:
        os.close(write_end)
    assert proc.returncode == 0, proc.stderr.decode()
    assert b"internal error" not in proc.stderr, proc.stderr.decode()


def test_every_property_is_declared_once_and_used():
    """Each declared property is held by exactly one settings field, read by a settings builder, refused by name,
    or listed as having no effect (with why); a property in one list only fails here."""
    import re

    from connector.config.declared import declared_properties
    from connector.config.fields import BY_NAME, NO_EFFECT
    from connector.config.refusals import REFUSALS
    from connector.config.settings import Settings

    held = declared_properties(Settings)
    root = DOC.parents[1]
    builders = "".join(p.read_text(encoding="utf-8") for p in (root / "connector" / "config").glob("*.py"))
    read = set(re.findall(r"\br\.get\(\s*[\"']([a-z][\w.]+)[\"']", builders))
    read |= {n for n in BY_NAME if f'raw.get("{n}"' in builders or f"raw.get('{n}'" in builders}
    refused = {n for n in BY_NAME if any(r.matches(n) for r in REFUSALS)}
    unaccounted = sorted(set(BY_NAME) - set(held) - read - refused - set(NO_EFFECT))
    assert not unaccounted, f"declared but neither held, read, refused nor listed in NO_EFFECT: {unaccounted}"
    assert not set(NO_EFFECT) - set(BY_NAME), "NO_EFFECT names an undeclared property"
    assert not (set(NO_EFFECT) & (set(held) | read)), "a property listed in NO_EFFECT is used after all"
    # a dataclass default written by hand next to a declared property would drift: every held field's default
    # is the declaration's (prop() makes it so; this catches a field that names its property in a comment only)
    assert len(held) == len(set(held.values()))


def test_every_property_read_by_name_is_declared():
    """The other direction: a property a settings builder reads by its name (`r.get("...")`, `raw.get("...")`) is
    declared in fields.py, or belongs to a declared family of names (PATTERN_PROPERTIES); a read of a name no
    declaration knows would take a value `binlog-cdc properties`, the docs and the typo check never heard of."""
    import re

    from connector.config.fields import BY_NAME, PATTERN_PROPERTIES

    root = DOC.parents[1] / "connector" / "config"
    read = {name for p in root.glob("*.py")
            for name in re.findall(r"\b(?:r|raw|reader)\.get\(\s*[\"']([a-z][\w.]+)[\"']", p.read_text("utf-8"))}
    assert len(read) > 20  # the pattern still finds the reads
    undeclared = sorted(n for n in read if n not in BY_NAME and not any(p.fullmatch(n) for p in PATTERN_PROPERTIES))
    assert not undeclared, f"read by name but declared nowhere (connector/config/fields.py): {undeclared}"
