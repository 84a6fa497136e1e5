"""The public surface of spark_sink, and the import rule: it never imports the connector."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

pytest.importorskip("pyspark")

import spark_sink  # noqa: E402

PACKAGE = Path(spark_sink.__file__).parent


def test_all_names_exist() -> None:
    assert sorted(spark_sink.__all__) == sorted(set(spark_sink.__all__))
    for name in spark_sink.__all__:
        assert hasattr(spark_sink, name), name
    assert {"read_changes", "apply_changes", "read_kafka", "decode_batch", "DeltaTarget", "ParquetTarget"} \
        <= set(spark_sink.__all__)


def test_reads_the_wire_format_only() -> None:
    forbidden = {"connector", "snapshot", "schema_history"}
    for path in PACKAGE.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            assert not {n.split(".")[0] for n in names} & forbidden, f"{path.name} imports {names}"
