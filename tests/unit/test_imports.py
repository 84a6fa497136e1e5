"""Imports between packages point one way, down the order declared once below (`LAYERS`): a package imports only
packages drawn below it, never one above it or beside it, and no package is part of an import circle. A new
upward import or a new circle fails here, naming the files that make it.

`LAYERS` is docs/ARCHITECTURE.md's flow read as imports: each stage imports the stages it hands its output to and
the concepts it works with, which sit below it. Where the import order is not the order data flows in, the comment
on the layer says why: streaming *reads* the binlog (it imports binlog/, not the other way round), a transform takes
the record events/ built, the Kafka offsets store writes through the Kafka writer, and the table model
(schema_history) is shared by every stage (docs/ARCHITECTURE.md, /work/shared/style.md §1).
"""
from __future__ import annotations

import ast
from collections import defaultdict
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TOP = ("connector", "snapshot", "schema_history", "spark_sink")

# Top to bottom. A package may import any package in a layer below its own; none in its own layer or above.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("connector.cli",),                     # the command line: runs the daemon, or a one-off command
    ("connector.daemon",),                  # the composition root: builds every object from Settings
    ("connector.signal_wiring", "connector.snapshot_wiring", "connector.standby_wiring"),  # the composition root's
                                            # signal and snapshot parts, an HA standby's preparation
    ("connector.coordinator",),             # start decision, initial snapshot, then streaming; pauses it
    ("snapshot",),                          # initial, resumed, parallel, incremental, blocking snapshots (op=r)
    ("connector.signals", "connector.notifications"),  # wrap streaming's emitter; read streaming's state
    ("connector.streaming",),               # the event-type → handler table, the reconnecting loop
    ("connector.dispatch",),                # filters, routing, the one encoder; hands records to Kafka
    ("connector.schema",),                  # DDL → the schema tracker, TABLE_MAP checks, the live server's view
    ("connector.binlog",),                  # the binlog reader and rows decoder: read by streaming, rows decoded
                                            # late by dispatch (fused rows, encode workers) and signals
    ("connector.transforms",),              # SMTs and predicates over the records events/ builds
    ("connector.events",),                  # per table version: schemas, envelope, source block, record kinds
    ("connector.converters",),              # column type → Connect value
    ("connector.serde",),                   # Connect schemas and values → JSON / Avro bytes
    ("connector.ops",),                     # metrics, /health, status file
    ("connector.ha",),                      # the active instance's lease
    ("connector.offsets",),                 # positions and offsets, tracker, committer, stores
    ("connector.kafka",),                   # the only producer, admin, topic reader
    ("connector.config",),                  # Debezium properties → typed Settings (shared by every stage)
    ("schema_history",),                    # DDL parser, table model, history stores (the model is shared)
    ("connector.gtids", "connector.java", "connector.errors", "connector.shutdown"),  # leaves: import nothing above
)
# Reads the wire format only, so that it works on any Debezium's topics: it imports nothing of the others, and
# nothing imports it.
ISLANDS = ("spark_sink",)
# The only modules that may import snapshot/: the composition root, its signal and snapshot wiring, the coordinator,
# the CLI.
SNAPSHOT_IMPORTERS = {"connector.daemon", "connector.signal_wiring", "connector.snapshot_wiring",
                      "connector.coordinator", "connector.cli"}


def _module(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _package(module: str) -> str:
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] == "connector" and len(parts) > 1 else parts[0]


def _imported(node: ast.AST) -> list[str]:
    """The modules an import statement names; `from connector import events` names connector.events."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if not isinstance(node, ast.ImportFrom) or not node.module or node.level:
        return []
    return [f"connector.{a.name}" for a in node.names] if node.module == "connector" else [node.module]


@cache
def _imports() -> dict[str, dict[str, set[str]]]:
    """package -> imported package -> the files that import it."""
    edges: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for top in TOP:
        for path in (ROOT / top).rglob("*.py"):
            source = _package(_module(path))
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                for name in _imported(node):
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


def _upward(edges: dict[str, dict[str, set[str]]],
            layers: tuple[tuple[str, ...], ...]) -> dict[str, list[str]]:
    """`importer -> imported` for every import of a package in the importer's layer or above it, with its files."""
    rank = {package: depth for depth, layer in enumerate(layers) for package in layer}
    return {f"{a} -> {b}": sorted(files) for a, targets in edges.items() for b, files in targets.items()
            if a in rank and b in rank and rank[b] <= rank[a]}


def test_every_package_has_a_layer():
    """A new package (or a new module at connector/'s root) is placed in `LAYERS`, or declared an island, before
    anything may import it. (connector/__init__.py only draws the flow.)"""
    found = {_package(_module(p)) for top in TOP for p in (ROOT / top).rglob("*.py")} - {"connector"}
    placed = [package for layer in LAYERS for package in layer]
    assert len(placed) == len(set(placed)), "a package is in two layers"
    assert found == set(placed) | set(ISLANDS), (f"not placed: {sorted(found - set(placed) - set(ISLANDS))}; "
                                                 f"placed but gone: {sorted(set(placed) - found)}")


def test_no_upward_import():
    upward = _upward(_imports(), LAYERS)
    assert not upward, f"imports of a package drawn above or beside the importer (LAYERS): {upward}"


def test_an_upward_import_is_found():
    """The check above sees an import up the order and one beside it, and names their files; downward is fine."""
    layers = (("top",), ("mid", "side"), ("low",))
    edges = {"top": {"mid": {"top.py"}}, "mid": {"low": {"m.py"}, "side": {"m2.py"}},
             "low": {"top": {"low.py"}}}
    assert _upward(edges, layers) == {"mid -> side": ["m2.py"], "low -> top": ["low.py"]}


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
    importers = {a: sorted(t["spark_sink"]) for a, t in edges.items() if "spark_sink" in t}
    assert not importers, f"{importers} import spark_sink: it is an island"


def test_schema_history_imports_only_the_leaves_of_connector():
    allowed = {"connector.errors", "connector.java", "connector.config", "connector.gtids"}
    edges = _imports()
    extra = {k: sorted(v) for k, v in edges.get("schema_history", {}).items() if k not in allowed}
    assert not extra, f"schema_history imports {extra}; it may import only {sorted(allowed)}"
