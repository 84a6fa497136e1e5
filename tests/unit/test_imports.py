"""Imports between packages point one way: no package is part of an import circle, and only the composition
root and the coordinator import snapshot/ (README flow, docs/ARCHITECTURE.md). A new circle or a new upward import
fails here, naming the modules that make it."""
from __future__ import annotations

import ast
from collections import defaultdict
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TOP = ("connector", "snapshot", "schema_history", "spark_sink")
# The only modules that may import snapshot/: the composition root, its signal and snapshot wiring, the coordinator,
# the CLI.
SNAPSHOT_IMPORTERS = {"connector.daemon", "connector.signal_wiring", "connector.snapshot_wiring",
                      "connector.coordinator", "connector.cli"}


def _package(module: str) -> str:
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] == "connector" and len(parts) > 1 else parts[0]


@cache
def _imports() -> dict[str, dict[str, set[str]]]:
    """package -> imported package -> the files that import it."""
    edges: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for top in TOP:
        for path in (ROOT / top).rglob("*.py"):
            module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            source = _package(module)
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                names = ([node.module] if isinstance(node, ast.ImportFrom) and node.module and not node.level else
                         [a.name for a in node.names] if isinstance(node, ast.Import) else [])
                for name in names:
                    if name.split(".")[0] in TOP and _package(name) != source:
                        edges[source][_package(name)].add(str(path.relative_to(ROOT)))
    return edges


def _circles(edges: dict[str, dict[str, set[str]]]) -> list[frozenset[str]]:
    """Strongly connected components of more than one package (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[frozenset[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in edges.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(frozenset(component))

    for v in list(edges):
        if v not in index:
            visit(v)
    return out


def test_no_import_circle_between_packages():
    edges = _imports()
    circles = [sorted(c) for c in _circles(edges)]
    detail = {f"{a} -> {b}": sorted(edges[a][b]) for c in circles for a in c for b in c if b in edges.get(a, {})}
    assert not circles, f"import circle(s) between packages: {circles}; the imports that close them: {detail}"


def test_a_circle_is_found():
    """The check above sees a circle of three packages, and names it."""
    edges = {"a": {"b": {"a.py"}}, "b": {"c": {"b.py"}}, "c": {"a": {"c.py"}}, "d": {"a": {"d.py"}}}
    assert _circles(edges) == [frozenset({"a", "b", "c"})]


def test_only_the_root_imports_snapshot():
    offenders = {}
    for path in (ROOT / "connector").rglob("*.py"):
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "snapshot":
                if module not in SNAPSHOT_IMPORTERS:
                    offenders.setdefault(module, set()).add(node.module)
    assert not offenders, f"only {sorted(SNAPSHOT_IMPORTERS)} may import snapshot/; also: {offenders}"


def test_spark_sink_reads_the_wire_format_only():
    edges = _imports()
    assert not edges.get("spark_sink"), f"spark_sink imports {dict(edges['spark_sink'])}: it must work on any " \
        "Debezium's topics, so it imports nothing of the connector"


def test_schema_history_imports_only_the_leaves_of_connector():
    allowed = {"connector.errors", "connector.java", "connector.config", "connector.gtids"}
    edges = _imports()
    extra = {k: sorted(v) for k, v in edges.get("schema_history", {}).items() if k not in allowed}
    assert not extra, f"schema_history imports {extra}; it may import only {sorted(allowed)}"
