"""Names from the long tail (issue 14): topics, tableChanges ids and ENUM/SET options as Debezium 3.6.3 writes
them (goldens longtail / longtail-mysql)."""

from __future__ import annotations

from connector.config.settings import TopicSettings
from connector.converters import ValueSettings, resolve
from connector.converters.enum_set import enum_options
from connector.events.topic_names import TopicNamer, sanitize_topic_name
from schema_history.model import Column, TableId


def test_topic_names_keep_only_what_kafka_accepts() -> None:
    assert sanitize_topic_name("dbserver1.lt.d_ünï cödé") == "dbserver1.lt.d__n__c_d_"
    assert sanitize_topic_name('p.db.c_back`tick$[x]') == "p.db.c_back_tick__x_"
    assert sanitize_topic_name("p.db.ok_name-1") == "p.db.ok_name-1"
    assert sanitize_topic_name("p.db.\U0001F600") == "p.db.__"  # one `_` per UTF-16 unit, as Java counts


def test_topic_namer_remembers_which_tables_write_a_topic() -> None:
    namer = TopicNamer(TopicSettings(prefix="p"))
    assert namer.data_topic(TableId("db", 'a"b')) == "p.db.a_b"
    assert namer.data_topic(TableId("db", "a$b")) == "p.db.a_b"
    assert namer.tables_for("p.db.a_b") == [TableId("db", 'a"b'), TableId("db", "a$b")]


def test_table_change_id_doubles_quotes_and_parses_back() -> None:
    table_id = TableId("db", 'spe"cial')
    assert table_id.identifier() == '"db"."spe""cial"'
    assert TableId.parse_identifier(table_id.identifier()) == table_id


def _enum(*literals: str) -> Column:
    return Column(name="e", position=1, jdbc_type=1, type_name="ENUM", type_expression="ENUM", enum_values=literals)


def test_enum_options_escape_commas_and_read_quotes() -> None:
    column = _enum("'a,b'", "'it''s'", "'back\\\\slash'", "'ü'", "'\"dq\"'", "'it\\'s2'")
    assert enum_options(column) == ["a\\,b", "it's", "back\\\\slash", "ü", '"dq"', "it's2"]
    conv = resolve(column, ValueSettings())
    assert dict(conv.schema.parameters)["allowed"] == 'a\\,b,it\'s,back\\\\slash,ü,"dq",it\'s2'
    # streamed rows carry the option's spelling, whether the binlog gives the server's text or the index
    assert conv.from_binlog("a,b") == "a\\,b"
    assert conv.from_binlog("back\\slash") == "back\\\\slash"
    assert conv.from_binlog(6) == "it's2"


def test_every_character_type_spelling_of_the_ddl_parser_has_a_converter() -> None:
    """issue 24: `NCHAR VARCHAR(6)` had none, so a streamed CREATE TABLE took its whole shape from SHOW CREATE TABLE
    (charsetName utf8mb3 and CHAR/VARCHAR where Debezium writes utf8 and NCHAR/NVARCHAR; goldens national*)."""
    from schema_history.ddl.type_names import Family, _entries

    for entry in _entries():
        if entry.family in (Family.STRING, Family.NATIONAL):
            name = " ".join(entry.words)
            column = Column(name="c", position=1, jdbc_type=entry.jdbc, type_name=name, type_expression=name,
                            length=3, charset_name="utf8mb4")
            assert resolve(column, ValueSettings()) is not None, name
