"""Generated CREATE/ALTER statements through the DDL oracle (issue 14), on both servers.

Hypothesis draws a table (column types, lengths, unsigned, nullability, defaults, charsets and collations,
generated columns, a primary key) and a run of ALTERs on it (add/modify/change/rename/drop column, defaults,
index and primary-key changes, charset conversion). Every statement runs on the server and in memory, and
tests/support/ddl_oracle.py compares the in-memory schema with information_schema after each one. What a
hand-written corpus misses shows up here as a problem naming the statement. Derandomized with a bounded
number of examples, so CI runs the same statements every time and the test stays well under a minute.
"""
from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.ddl_oracle import run_oracle

INT_TYPES = ["TINYINT", "SMALLINT", "MEDIUMINT", "INT", "BIGINT"]
CHARSETS = [None, "latin1", "utf8mb4", "ascii", "utf8mb3"]
COLLATIONS = {"latin1": ["latin1_bin", "latin1_swedish_ci"], "utf8mb4": ["utf8mb4_bin", "utf8mb4_unicode_ci"],
              "ascii": ["ascii_bin"], "utf8mb3": ["utf8mb3_general_ci"]}
NAMES = [f"c{i}" for i in range(12)] + ["`sp ace`", "`Mixed`", "`sel``ect`"]


@st.composite
def column_type(draw) -> str:
    kind = draw(st.sampled_from(["int", "char", "decimal", "float", "time", "text", "enum", "bit", "bin"]))
    if kind == "int":
        return draw(st.sampled_from(INT_TYPES)) + draw(st.sampled_from(["", " UNSIGNED", " UNSIGNED ZEROFILL"]))
    if kind == "char":
        base = f"{draw(st.sampled_from(['CHAR', 'VARCHAR']))}({draw(st.integers(1, 60))})"
        charset = draw(st.sampled_from(CHARSETS))
        if charset:
            base += f" CHARACTER SET {charset}"
            if draw(st.booleans()):
                base += f" COLLATE {draw(st.sampled_from(COLLATIONS[charset]))}"
        return base
    if kind == "decimal":
        precision = draw(st.integers(1, 65))
        return f"DECIMAL({precision},{draw(st.integers(0, min(precision, 30)))})" + draw(st.sampled_from(["", " UNSIGNED"]))
    if kind == "float":
        return draw(st.sampled_from(["FLOAT", "DOUBLE", "REAL", "FLOAT(7,3)", "DOUBLE(12,4)"]))
    if kind == "time":
        fsp = draw(st.sampled_from(["", "(0)", "(3)", "(6)"]))
        return draw(st.sampled_from(["DATETIME", "TIMESTAMP", "TIME"])) + fsp if fsp else draw(
            st.sampled_from(["DATE", "YEAR", "DATETIME", "TIME"]))
    if kind == "text":
        return draw(st.sampled_from(["TEXT", "TINYTEXT", "MEDIUMBLOB", "BLOB", "LONGTEXT CHARACTER SET latin1"]))
    if kind == "enum":
        members = draw(st.lists(st.sampled_from(["a", "b c", "it''s", "ü", "x,y"]), min_size=1, max_size=4,
                                unique=True))
        return draw(st.sampled_from(["ENUM", "SET"])) + "(" + ", ".join(f"'{m}'" for m in members) + ")"
    if kind == "bit":
        return f"BIT({draw(st.integers(1, 64))})"
    return f"{draw(st.sampled_from(['BINARY', 'VARBINARY']))}({draw(st.integers(1, 40))})"


def _default(col_type: str, draw) -> str:
    """A default that suits the type (or none): the server would refuse most others."""
    t = col_type.split("(")[0].split(" ")[0]
    choices = [""]
    if t in INT_TYPES:
        choices += [" DEFAULT 0", " DEFAULT 7", " DEFAULT NULL", " DEFAULT '3'"]
    elif t in ("CHAR", "VARCHAR"):
        choices += [" DEFAULT ''", " DEFAULT 'a'", " DEFAULT NULL"]
    elif t == "DECIMAL":
        choices += [" DEFAULT 0", " DEFAULT NULL"]
    elif t in ("DATETIME", "TIMESTAMP") and "(" not in col_type:
        choices += [" DEFAULT CURRENT_TIMESTAMP", " DEFAULT '2020-01-02 03:04:05'"]
    elif t == "DATE":
        choices += [" DEFAULT '2020-01-02'"]
    elif t == "BIT":
        choices += [" DEFAULT b'1'"]
    return draw(st.sampled_from(choices))


@st.composite
def column_def(draw, name: str) -> str:
    col_type = draw(column_type())
    null = draw(st.sampled_from(["", " NULL", " NOT NULL"]))
    default = _default(col_type, draw)
    if "NOT NULL" in null and default == " DEFAULT NULL":
        default = ""
    comment = draw(st.sampled_from(["", " COMMENT 'c'"]))
    return f"{name} {col_type}{null}{default}{comment}"


@st.composite
def table_script(draw) -> list[str]:
    names = draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=6, unique=True))
    cols = ["id INT NOT NULL"] + [draw(column_def(n)) for n in names]
    if draw(st.booleans()):
        cols.append("g INT AS (id * 2) " + draw(st.sampled_from(["VIRTUAL", "STORED"])))
    # (a NOT NULL UNIQUE key counts as the primary key in Debezium, unlike information_schema: see test_ddl_oracle)
    pk = draw(st.sampled_from(["PRIMARY KEY (id)", None]))
    options = draw(st.sampled_from(["", " DEFAULT CHARSET=latin1", " CHARSET=utf8mb4 COLLATE=utf8mb4_bin",
                                    " ENGINE=InnoDB ROW_FORMAT=DYNAMIC"]))
    statements = [f"CREATE TABLE gen ({', '.join(cols + ([pk] if pk else []))}){options}"]
    counter = itertools.count()
    for _ in range(draw(st.integers(1, 8))):
        new = f"n{next(counter)}"
        target = draw(st.sampled_from(names))
        statements.append("ALTER TABLE gen " + draw(st.sampled_from([
            f"ADD COLUMN {draw(column_def(new))}" + draw(st.sampled_from(["", " FIRST", " AFTER id"])),
            f"MODIFY COLUMN {draw(column_def(target))}",
            f"CHANGE COLUMN {target} {draw(column_def(new))}",
            f"RENAME COLUMN {target} TO {new}",
            f"DROP COLUMN {target}",
            f"ALTER COLUMN {target} DROP DEFAULT",
            f"ADD INDEX ix_{new} (id)",
            "DROP PRIMARY KEY",
            "ADD PRIMARY KEY (id)",
            "CONVERT TO CHARACTER SET " + draw(st.sampled_from(["latin1", "utf8mb4"])),
            "DEFAULT CHARACTER SET = " + draw(st.sampled_from(["ascii", "utf8mb4"])),
        ])))
    statements.append("DROP TABLE gen")
    return statements


@pytest.mark.parametrize("flavour", ["mariadb", pytest.param("mysql", marks=pytest.mark.mysql)])
def test_generated_ddl_keeps_the_in_memory_schema_equal_to_the_server(flavour, request, unique_database):
    server = request.getfixturevalue(flavour)
    db = unique_database(server)
    seen = {"accepted": 0}

    @settings(max_examples=60, derandomize=True, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(table_script())
    def check(statements: list[str]) -> None:
        server.query(f"DROP TABLE IF EXISTS `{db}`.gen")
        report = run_oracle(lambda: server.connect(db), db, statements)
        seen["accepted"] += len(report.accepted)
        assert report.problems == [], "\n".join([report.summary(), *statements, *report.problems])

    check()
    assert seen["accepted"] >= 150  # the server ran most of what was generated (the rest: refused shapes)
