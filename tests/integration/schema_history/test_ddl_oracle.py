"""The DDL oracle on the long-tail corpus (tests/fixtures/ddl/longtail_corpus.sql), on both servers.

After every statement the in-memory schema must equal `information_schema` (tests/support/ddl_oracle.py)
and every column must have a working converter. The only differences allowed are Debezium's own, listed
below with the reason, so that what binlog-cdc records stays what Debezium records.
"""

from __future__ import annotations

import re

import pytest

from tests.support.ddl_oracle import corpus_statements, run_oracle

# Debezium's parser records these shapes differently from the server, and binlog-cdc follows Debezium.
DEBEZIUM_DIVERGENCES = {
    r"\.t5: columns \[\] but the server has": "CREATE TABLE ... AS SELECT: only the written columns (golden ddl_edge)",
    r"\.t6: columns \['id'\] but the server has": "CREATE TABLE (cols) SELECT ...: the selected extra columns are unknown",
    r"\.serial_t: primary key \['id'\] but the server has \[\]": "SERIAL's UNIQUE counts as the key, as in Debezium",
}


def _unexpected(problems: list[str]) -> list[str]:
    return [p for p in problems if not any(re.search(pattern, p) for pattern in DEBEZIUM_DIVERGENCES)]


@pytest.mark.parametrize("flavour", ["mariadb", pytest.param("mysql", marks=pytest.mark.mysql)])
def test_in_memory_schema_equals_the_server_after_every_statement(flavour: str, request, unique_database) -> None:
    server = request.getfixturevalue(flavour)
    db = unique_database(server)
    try:
        report = run_oracle(lambda: server.connect(db), db, corpus_statements(db))
    finally:
        server.query(f"DROP DATABASE IF EXISTS `{db}_other`")
    assert len(report.accepted) >= 120, report.summary()  # the corpus really ran
    assert len(report.refused) <= 2, report.refused  # MariaDB has no SET VISIBLE
    assert _unexpected(report.problems) == [], report.summary()
