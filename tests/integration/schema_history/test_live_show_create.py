"""Live check against a real server: after each CREATE/ALTER, the schema our parser derived from
the statements equals the one it derives from the server's own `SHOW CREATE TABLE` output.

Compared: table set, primary key, default charset, and per column name, order, JDBC type,
nullability, charset, length/scale where both spellings carry one, ENUM/SET values,
autoIncremented and whether a default exists. Aliases that Debezium keeps as written but the
server normalizes (BOOLEAN -> tinyint(1), NATIONAL VARCHAR -> varchar utf8mb3, INT -> int(11))
are mapped first; statement sequences avoid Debezium's known divergences from the server
(ALTER ... DEFAULT CHARSET, unique keys dropped after acting as PK).
"""

from __future__ import annotations

import pytest

from schema_history.ddl.parser import apply_ddl
from schema_history.ddl.type_names import Jdbc
from schema_history.model import Table
from schema_history.state import SchemaState

STATEMENTS = [
    "CREATE TABLE t1 (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, a VARCHAR(10), b TEXT CHARACTER SET utf8mb4, "
    "c DECIMAL(8,2) NOT NULL DEFAULT 0, d ENUM('x','yy') NOT NULL DEFAULT 'x', e SET('p','q'), f DATETIME(3), "
    "g TIMESTAMP(6) NULL, h BINARY(4), i VARBINARY(9), j CHAR(2) COLLATE latin1_bin, k BIGINT UNSIGNED, "
    "l DECIMAL, z MEDIUMBLOB)",
    "ALTER TABLE t1 ADD COLUMN m INT FIRST",
    "ALTER TABLE t1 ADD COLUMN n VARCHAR(5) NOT NULL DEFAULT 'z' AFTER a, ADD o INT",
    "ALTER TABLE t1 ADD (p INT, q TINYTEXT)",
    "ALTER TABLE t1 MODIFY a VARCHAR(20) NOT NULL",
    "ALTER TABLE t1 MODIFY m BIGINT AFTER id",
    "ALTER TABLE t1 CHANGE o o2 SMALLINT UNSIGNED FIRST",
    "ALTER TABLE t1 CHANGE COLUMN b b2 MEDIUMTEXT CHARACTER SET latin1 AFTER z",
    "ALTER TABLE t1 RENAME COLUMN p TO p2",
    "ALTER TABLE t1 ALTER COLUMN n SET DEFAULT 'w'",
    "ALTER TABLE t1 ALTER COLUMN n DROP DEFAULT",
    "ALTER TABLE t1 DROP COLUMN q, DROP p2",
    "ALTER TABLE t1 DROP PRIMARY KEY, ADD PRIMARY KEY (id, c)",
    "ALTER TABLE t1 CONVERT TO CHARACTER SET utf8mb4",
    "ALTER TABLE t1 ADD COLUMN r VARCHAR(3), ADD INDEX ix_r (r)",
    "CREATE TABLE t2 (a INT NOT NULL, b INT NOT NULL, c INT, UNIQUE KEY (a, b))",
    "ALTER TABLE t2 ADD COLUMN d INT NOT NULL FIRST",
    "ALTER TABLE t2 ADD PRIMARY KEY (d)",
    "CREATE TABLE t3 (a INT, b VARCHAR(4))",
    "ALTER TABLE t3 ADD UNIQUE KEY (b)",
    "CREATE UNIQUE INDEX ux_a ON t3 (a)",
    "RENAME TABLE t3 TO t3b",
    "ALTER TABLE t3b RENAME TO t3c",
    "CREATE TABLE t4 LIKE t1",
    "CREATE TABLE t5 (id SERIAL, v VARCHAR(2) CHARACTER SET ascii, w NATIONAL VARCHAR(3))",
    "ALTER TABLE t5 ADD COLUMN x BOOLEAN DEFAULT TRUE, ADD y ENUM('a','b') CHARACTER SET utf8mb4",
    "CREATE TABLE t6 (a INT PRIMARY KEY, b INT) CHARSET utf8mb3",
    "ALTER TABLE t6 ADD c CHAR(3), ADD d VARCHAR(4) COLLATE utf8mb4_bin",
    "CREATE TABLE t7 (a INT, b INT, c INT, PRIMARY KEY (a))",
    "ALTER TABLE t7 DROP COLUMN a",
    "ALTER TABLE t7 ADD COLUMN d INT AFTER b, MODIFY c INT FIRST",
    "CREATE TABLE t8 (id INT NOT NULL, ts TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP, "
    "PRIMARY KEY (id))",
    "ALTER TABLE t8 ADD COLUMN g INT AS (id * 2) VIRTUAL, ADD COLUMN u INT UNSIGNED ZEROFILL",
    "DROP TABLE t8, t7",
]

# Debezium keeps aliases as written; the server prints the canonical type.
_JDBC_ALIAS = {Jdbc.BOOLEAN: Jdbc.SMALLINT, Jdbc.NVARCHAR: Jdbc.VARCHAR, Jdbc.NCHAR: Jdbc.CHAR, Jdbc.REAL: Jdbc.DOUBLE}
_WITH_LENGTH = {Jdbc.CHAR, Jdbc.VARCHAR, Jdbc.DECIMAL, Jdbc.NUMERIC, Jdbc.BINARY, Jdbc.VARBINARY, Jdbc.TIME,
                Jdbc.TIMESTAMP, Jdbc.TIMESTAMP_WITH_TIMEZONE}


def _projection(table: Table) -> tuple:
    cols = []
    for c in table.columns:
        jdbc = _JDBC_ALIAS.get(c.jdbc_type, c.jdbc_type)
        charset = "utf8mb3" if c.charset_name == "utf8" else c.charset_name
        enum = c.enum_values if c.type_name in ("ENUM", "SET") else ()
        length = (c.length, c.scale) if jdbc in _WITH_LENGTH and "TEXT" not in c.type_name else None
        cols.append((c.name, c.position, jdbc, c.optional, charset, length, enum, c.auto_incremented,
                     c.has_default_value))
    return (table.id.table, tuple(table.primary_key_column_names), table.default_charset_name, tuple(cols))


def _server_schema(server, db: str, server_charset: str, db_charset: str) -> dict[str, tuple]:
    state = SchemaState()
    apply_ddl(state, f"SET character_set_server={server_charset}", None)
    apply_ddl(state, f"CREATE DATABASE `{db}` CHARSET {db_charset}", db)
    apply_ddl(state, f"USE `{db}`", db)
    for name, _kind in server.query(f"SHOW FULL TABLES FROM `{db}` WHERE Table_type = 'BASE TABLE'"):
        (_, text), = server.query(f"SHOW CREATE TABLE `{db}`.`{name}`")
        apply_ddl(state, text, db)
    return {t.id.table: _projection(t) for t in state.tables}


@pytest.mark.parametrize("flavour", ["mariadb", pytest.param("mysql", marks=pytest.mark.mysql)])
def test_statements_and_show_create_agree(flavour: str, request, unique_database) -> None:
    server = request.getfixturevalue(flavour)
    db = unique_database(server)
    server.query(f"ALTER DATABASE `{db}` CHARACTER SET latin1 COLLATE latin1_swedish_ci")
    (server_charset,), = server.query("SELECT @@character_set_server")
    ours = SchemaState()
    apply_ddl(ours, f"SET character_set_server={server_charset}", None)
    apply_ddl(ours, f"CREATE DATABASE `{db}` CHARSET latin1", db)
    apply_ddl(ours, f"USE `{db}`", db)
    with server.connect(db) as conn, conn.cursor() as cur:
        for statement in STATEMENTS:
            cur.execute(statement)
            apply_ddl(ours, statement, db)
            mine = {t.id.table: _projection(t) for t in ours.tables if t.id.database == db}
            assert mine == _server_schema(server, db, server_charset, "latin1"), statement
