"""The real-world workloads are made from the corpus at test time (tests/support/ddl_corpus.py; edit the corpus);
the goldens realworld / realworld-mysql were recorded from exactly what it makes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.ddl_corpus import BEYOND_DEBEZIUM, GENERATED, corpus_statements, streaming_statements, \
    workload_file, workload_text

GOLDEN = Path(__file__).resolve().parents[2] / "fixtures" / "golden"


@pytest.mark.parametrize("name", sorted(GENERATED))
def test_a_generated_workload_is_written_where_the_test_asks(name: str, tmp_path: Path) -> None:
    path = workload_file(name, tmp_path)
    assert path.parent == tmp_path and path.read_text(encoding="utf-8") == workload_text(GENERATED[name])
    assert not (GOLDEN.parent / "workloads" / name).exists(), "generated workloads are not committed"


def test_every_realworld_golden_names_a_generated_workload() -> None:
    names = {json.loads((d / "run_info.json").read_text())["workload"].rsplit("/", 1)[-1]
             for d in GOLDEN.glob("realworld*") if (d / "run_info.json").exists()}
    assert names and names <= set(GENERATED), names


def test_statements_beyond_debezium_are_streamed_but_never_in_a_golden_workload() -> None:
    beyond = streaming_statements("mariadb")[len(corpus_statements("mariadb")):]
    assert beyond and all(s not in workload_text("mariadb") for s in beyond if s.startswith("CREATE OR REPLACE"))
    assert BEYOND_DEBEZIUM.keys() <= set(GENERATED.values())
