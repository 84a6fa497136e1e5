"""The committed real-world workloads are what tests/support/ddl_corpus.py makes of the corpus files (edit the
corpus, then run `python -m tests.support.ddl_corpus`); the goldens realworld / realworld-mysql were recorded
from them."""

from __future__ import annotations

import pytest

from tests.support.ddl_corpus import BEYOND_DEBEZIUM, WORKLOAD_FILES, corpus_statements, streaming_statements, \
    workload_text


@pytest.mark.parametrize("server", sorted(WORKLOAD_FILES))
def test_committed_workload_is_generated_from_the_corpus(server: str) -> None:
    assert WORKLOAD_FILES[server].read_text(encoding="utf-8") == workload_text(server)


def test_statements_beyond_debezium_are_streamed_but_never_in_a_golden_workload() -> None:
    beyond = streaming_statements("mariadb")[len(corpus_statements("mariadb")):]
    assert beyond and all(s not in workload_text("mariadb") for s in beyond if s.startswith("CREATE OR REPLACE"))
    assert BEYOND_DEBEZIUM.keys() <= WORKLOAD_FILES.keys()
