"""`SchemaState`: everything DDL parsing needs besides the statement itself.

Debezium's parser keeps the tables, a map database → default charset (from CREATE/ALTER DATABASE
and the snapshot's `CREATE DATABASE`), the system variables it has seen (`SET character_set_server`,
`character_set_database` as switched by `USE`) and the current database. Charset resolution follows
`MySqlAntlrDdlParser.charsetForTable`: the table's database default, else the current database's
charset variable, else the server's.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from schema_history.model import TableId, Tables


@dataclass
class SchemaState:
    tables: Tables = field(default_factory=Tables)
    database_charsets: dict[str, str] = field(default_factory=dict)
    variables: dict[str, str | None] = field(default_factory=dict)
    current_database: str | None = None
    # include.schema.comments: Debezium's parser keeps column/table COMMENTs only when it is set
    include_comments: bool = False
    # table → the last statement that created or changed it, for errors that must name it
    last_ddl: dict[TableId, str] = field(default_factory=dict)

    def copy(self) -> "SchemaState":
        return SchemaState(self.tables.copy(), dict(self.database_charsets), dict(self.variables),
                           self.current_database, self.include_comments, dict(self.last_ddl))

    def server_charset(self) -> str | None:
        return self.variables.get("character_set_server")

    def current_database_charset(self) -> str | None:
        charset = self.variables.get("character_set_database")
        if charset is None or charset.upper() == "DEFAULT":
            charset = self.server_charset()
        return charset

    def charset_for_table(self, table_id: TableId) -> str | None:
        return self.database_charsets.get(table_id.database) or self.current_database_charset()

    def use_database(self, database: str) -> None:
        """`USE db`: MySQL switches `character_set_database` along with the database."""
        self.current_database = database
        self.variables["character_set_database"] = self.database_charsets.get(database)

    def drop_database(self, database: str) -> list[TableId]:
        dropped = [t for t in self.tables.ids() if t.database == database]
        for table_id in dropped:
            self.tables.remove(table_id)
        self.database_charsets.pop(database, None)
        return dropped
