"""The DDL corpus (tests/fixtures/ddl/corpus.sql): statement -> events and table shapes."""

from __future__ import annotations

import pytest

from schema_history.ddl.parser import apply_ddl
from schema_history.errors import DdlParseError
from schema_history.state import SchemaState
from tests.unit.schema_history.corpus import (
    PREAMBLE,
    describe_column,
    describe_event,
    describe_table_header,
    load_cases,
)

CASES = load_cases()


def test_corpus_is_not_empty() -> None:
    assert len(CASES) >= 30


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_corpus_case(case) -> None:
    state = SchemaState()
    if case.preamble:
        for statement in PREAMBLE:
            apply_ddl(state, statement, None)
    *setup, last = case.statements
    for statement in setup:
        apply_ddl(state, statement, state.current_database)
    if case.error:
        before = state.copy()
        with pytest.raises(DdlParseError) as info:
            apply_ddl(state, last, state.current_database)
        assert last.split("(")[0].strip() in str(info.value)  # the error names the statement
        assert state.tables.as_mapping() == before.tables.as_mapping()  # and changed nothing
        return
    events = apply_ddl(state, last, state.current_database)
    assert (" | ".join(describe_event(e) for e in events) or "NONE") == case.events
    expected_tables = {header: cols for header, cols in case.tables.items()}
    actual_tables = {describe_table_header(t): [describe_column(c) for c in t.columns] for t in state.tables}
    assert actual_tables == expected_tables
    for dotted in case.absent:
        assert all(t.id.dotted() != dotted for t in state.tables), dotted
