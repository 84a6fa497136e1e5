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


def test_all_names_are_lazy_and_complete() -> None:
    """Every public name is importable on demand (the package imports nothing eagerly, so Spark's Python workers,
    which import spark_sink.kafka_source, start fast)."""
    assert set(spark_sink._MODULE_OF) == set(spark_sink.__all__)
    import subprocess
    import sys
    loaded = subprocess.run([sys.executable, "-c", "import sys, spark_sink.kafka_source; "
                             "print(' '.join(m for m in sys.modules if m.startswith(('spark_sink', 'sqlglot'))))"],
                            capture_output=True, text=True, check=True).stdout.split()
    assert "spark_sink.applier" not in loaded and "sqlglot" not in loaded, loaded
