"""The layout the README and `connector/__init__.py` describe, checked: stage packages under connector/,
only the composition root, coordinator, CLI, error tree and shutdown at its root, and no module over 500 lines."""
from __future__ import annotations

from pathlib import Path

import connector

ROOT = Path(__file__).resolve().parents[2]
ROOT_MODULES = {"__init__.py", "cli.py", "coordinator.py", "daemon.py", "signal_wiring.py", "snapshot_wiring.py",
                "standby_wiring.py", "errors.py", "shutdown.py"}
MAX_LINES = 500


def test_connector_root_keeps_only_the_composition_modules() -> None:
    assert {p.name for p in (ROOT / "connector").glob("*.py")} == ROOT_MODULES


def test_every_stage_package_is_declared() -> None:
    packages = {p.parent.name for p in (ROOT / "connector").glob("*/__init__.py")}
    assert sorted(connector.__all__) == sorted(packages)


def test_no_source_module_over_500_lines() -> None:
    too_long = {}
    for package in ("connector", "snapshot", "schema_history", "spark_sink"):
        for path in (ROOT / package).rglob("*.py"):
            lines = len(path.read_text(encoding="utf-8").splitlines())
            if lines > MAX_LINES:
                too_long[str(path.relative_to(ROOT))] = lines
    assert not too_long, f"split these modules: {too_long}"


def test_no_test_module_over_400_lines() -> None:
    too_long = {str(p.relative_to(ROOT)): n for p in (ROOT / "tests").rglob("*.py")
                if (n := len(p.read_text(encoding="utf-8").splitlines())) > 400}
    assert not too_long, f"split these test modules by what they test: {too_long}"


def test_no_object_new_or_dict_tricks() -> None:
    """State is declared (dataclasses, slots, side maps), never copied or planted through `__dict__`, and objects are
    built by their constructors, never by `X.__new__(X)` (issue 26). Checked on the syntax tree, so a comment or
    a docstring that names them does not count."""
    import ast

    found = []
    for package in ("connector", "snapshot", "schema_history", "spark_sink"):
        for path in (ROOT / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Attribute) and node.attr in ("__dict__", "__new__"):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno} .{node.attr}")
                elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "vars":
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno} vars()")
    assert not found, f"declare the state instead: {found}"


def test_readme_is_a_front_door() -> None:
    """README.md stays short (<= 200 lines) and sends the reader to the pages issue 26 asked for."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 200, "README.md is a front door: move the detail into docs/"
    pages = ("ARCHITECTURE", "CONFIGURATION", "PERFORMANCE", "DIFFERENCES", "TESTING")
    missing = [p for p in pages if not (ROOT / "docs" / f"{p}.md").exists() or f"docs/{p}.md" not in readme]
    assert not missing, f"docs pages missing or not linked from README.md: {missing}"
