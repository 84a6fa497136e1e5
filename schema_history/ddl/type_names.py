"""MySQL data types as Debezium's DDL parser resolves them (`MySqlAntlrDdlParser.initDataTypes`).

Each entry is the keyword sequence that names the type, the JDBC type code Debezium assigns, how the
rest of the type is parsed (`Family`), and the length/scale Debezium uses when none is written
(DECIMAL/NUMERIC: 10, 0). Debezium's type name is the written keywords, upper-cased, joined by a
space, plus the allowed suffix keywords (`UNSIGNED`, `ZEROFILL`, `BINARY`, ...); when two entries
match, the one with more keywords wins (`CHAR VARYING` over `CHAR`).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Jdbc:
    """`java.sql.Types` codes used by the MySQL connector."""

    BIT = -7
    TINYINT = -6
    SMALLINT = 5
    INTEGER = 4
    BIGINT = -5
    FLOAT = 6
    REAL = 7
    DOUBLE = 8
    NUMERIC = 2
    DECIMAL = 3
    CHAR = 1
    VARCHAR = 12
    NCHAR = -15
    NVARCHAR = -9
    DATE = 91
    TIME = 92
    TIMESTAMP = 93
    TIMESTAMP_WITH_TIMEZONE = 2014
    BINARY = -2
    VARBINARY = -3
    BLOB = 2004
    BOOLEAN = 16
    OTHER = 1111


# Column.typeUsesCharset(): only these JDBC types take the table's charset when none is written.
CHARSET_JDBC_TYPES = frozenset({Jdbc.CHAR, Jdbc.VARCHAR, -1, 2005, Jdbc.NCHAR, Jdbc.NVARCHAR, -16, 2011, 70, 2009})


class Family(Enum):
    STRING = "string"  # (n) CHARACTER SET x COLLATE y, BINARY suffix
    NATIONAL = "national"  # (n), always charset utf8
    NUMERIC = "numeric"  # (n) / (n,m), SIGNED/UNSIGNED/ZEROFILL
    DIMENSION = "dimension"  # (n): BIT, TIME, TIMESTAMP, DATETIME, BINARY, VARBINARY, BLOB, YEAR
    SIMPLE = "simple"  # no arguments
    COLLECTION = "collection"  # ENUM/SET ('a','b') CHARACTER SET x
    SPATIAL = "spatial"  # JSON and geometry types


@dataclass(frozen=True)
class TypeEntry:
    words: tuple[str, ...]
    jdbc: int
    family: Family
    suffixes: tuple[str, ...] = ()
    default_length: int = -1
    default_scale: int | None = None


_NUM_SUFFIX = ("SIGNED", "UNSIGNED", "ZEROFILL")
_BIN = ("BINARY",)  # `CHAR(3) BINARY` keeps BINARY in the type name


def _entries() -> list[TypeEntry]:
    s, n, num, dim, simple, coll, sp = (
        Family.STRING,
        Family.NATIONAL,
        Family.NUMERIC,
        Family.DIMENSION,
        Family.SIMPLE,
        Family.COLLECTION,
        Family.SPATIAL,
    )
    j = Jdbc
    out = [
        TypeEntry(("CHAR",), j.CHAR, s, _BIN),
        TypeEntry(("CHAR", "VARYING"), j.VARCHAR, s),
        TypeEntry(("VARCHAR",), j.VARCHAR, s, _BIN),
        TypeEntry(("TINYTEXT",), j.VARCHAR, s, _BIN),
        TypeEntry(("TEXT",), j.VARCHAR, s, _BIN),
        TypeEntry(("MEDIUMTEXT",), j.VARCHAR, s, _BIN),
        TypeEntry(("LONGTEXT",), j.VARCHAR, s, _BIN),
        TypeEntry(("NCHAR",), j.NCHAR, s, _BIN, 1),  # bare NCHAR / NATIONAL CHAR: length 1 (reference run longtail)
        TypeEntry(("NCHAR", "VARYING"), j.NVARCHAR, s),
        TypeEntry(("NVARCHAR",), j.NVARCHAR, s, _BIN),
        TypeEntry(("CHARACTER",), j.CHAR, s),
        TypeEntry(("CHARACTER", "VARYING"), j.VARCHAR, s),
        TypeEntry(("NATIONAL", "VARCHAR"), j.NVARCHAR, n, ("BINARY",)),
        TypeEntry(("NATIONAL", "CHARACTER"), j.NCHAR, n, ("BINARY",)),
        TypeEntry(("NATIONAL", "CHAR"), j.NCHAR, n, ("BINARY",), 1),
        TypeEntry(("NCHAR", "VARCHAR"), j.NVARCHAR, n, ("BINARY",)),
        TypeEntry(("NATIONAL", "CHAR", "VARYING"), j.NVARCHAR, n),
        TypeEntry(("NATIONAL", "CHARACTER", "VARYING"), j.NVARCHAR, n),
        TypeEntry(("TINYINT",), j.SMALLINT, num, _NUM_SUFFIX),
        TypeEntry(("INT1",), j.SMALLINT, num, _NUM_SUFFIX),
        TypeEntry(("SMALLINT",), j.SMALLINT, num, _NUM_SUFFIX),
        TypeEntry(("INT2",), j.SMALLINT, num, _NUM_SUFFIX),
        TypeEntry(("MEDIUMINT",), j.INTEGER, num, _NUM_SUFFIX),
        TypeEntry(("INT3",), j.INTEGER, num, _NUM_SUFFIX),
        TypeEntry(("MIDDLEINT",), j.INTEGER, num, _NUM_SUFFIX),
        TypeEntry(("INT",), j.INTEGER, num, _NUM_SUFFIX),
        TypeEntry(("INTEGER",), j.INTEGER, num, _NUM_SUFFIX),
        TypeEntry(("INT4",), j.INTEGER, num, _NUM_SUFFIX),
        TypeEntry(("BIGINT",), j.BIGINT, num, _NUM_SUFFIX),
        TypeEntry(("INT8",), j.BIGINT, num, _NUM_SUFFIX),
        TypeEntry(("REAL",), j.REAL, num, _NUM_SUFFIX),
        TypeEntry(("DOUBLE",), j.DOUBLE, num, ("PRECISION",) + _NUM_SUFFIX),
        TypeEntry(("FLOAT8",), j.DOUBLE, num, ("PRECISION",) + _NUM_SUFFIX),
        TypeEntry(("FLOAT",), j.FLOAT, num, _NUM_SUFFIX),
        TypeEntry(("FLOAT4",), j.FLOAT, num, _NUM_SUFFIX),
        TypeEntry(("DECIMAL",), j.DECIMAL, num, _NUM_SUFFIX, 10, 0),
        TypeEntry(("DEC",), j.DECIMAL, num, _NUM_SUFFIX, 10, 0),
        TypeEntry(("FIXED",), j.DECIMAL, num, _NUM_SUFFIX, 10, 0),
        TypeEntry(("NUMERIC",), j.NUMERIC, num, _NUM_SUFFIX, 10, 0),
        TypeEntry(("BIT",), j.BIT, dim, (), 1),  # bare BIT: length 1 (reference run longtail)
        TypeEntry(("TIME",), j.TIME, dim),
        TypeEntry(("TIMESTAMP",), j.TIMESTAMP_WITH_TIMEZONE, dim),
        TypeEntry(("DATETIME",), j.TIMESTAMP, dim),
        TypeEntry(("BINARY",), j.BINARY, dim),
        TypeEntry(("VARBINARY",), j.VARBINARY, dim),
        TypeEntry(("BLOB",), j.BLOB, dim),
        TypeEntry(("YEAR",), j.INTEGER, dim),
        TypeEntry(("DATE",), j.DATE, simple),
        TypeEntry(("TINYBLOB",), j.BLOB, simple),
        TypeEntry(("MEDIUMBLOB",), j.BLOB, simple),
        TypeEntry(("LONGBLOB",), j.BLOB, simple),
        TypeEntry(("BOOL",), j.BOOLEAN, simple),
        TypeEntry(("BOOLEAN",), j.BOOLEAN, simple),
        TypeEntry(("SERIAL",), j.BIGINT, simple),
        TypeEntry(("ENUM",), j.CHAR, coll, ("BINARY",)),
        TypeEntry(("SET",), j.CHAR, coll, ("BINARY",)),
        TypeEntry(("LONG", "VARBINARY"), j.BLOB, simple),
        TypeEntry(("LONG", "VARCHAR"), j.VARCHAR, s),
        TypeEntry(("VECTOR",), j.OTHER, dim),  # MySQL 9: VECTOR(n), n = dimensions (Debezium: OTHER, length n)
    ]
    for word in ("GEOMETRYCOLLECTION", "GEOMCOLLECTION", "LINESTRING", "MULTILINESTRING", "MULTIPOINT",
                 "MULTIPOLYGON", "POINT", "POLYGON", "JSON", "GEOMETRY"):
        out.append(TypeEntry((word,), j.OTHER, sp))
    return out


_BY_FIRST: dict[str, list[TypeEntry]] = {}
for _entry in _entries():
    _BY_FIRST.setdefault(_entry.words[0], []).append(_entry)
# Longest keyword sequence first, as Debezium's resolver prefers the entry matching more tokens.
for _list in _BY_FIRST.values():
    _list.sort(key=lambda e: -len(e.words))


def candidates(first_word: str) -> list[TypeEntry]:
    """Entries whose name starts with `first_word` (upper case), longest first."""
    return _BY_FIRST.get(first_word, [])


def collation_charset(collation: str) -> str | None:
    """The charset of a collation, as MySQL Connector/J's static collation table gives it.

    Connector/J 9 knows the `utf8mb3_*` names but not the old `utf8_*` spellings nor MariaDB's
    `uca1400` collations; for those Debezium finds no charset and falls back to the table's.
    """
    name = collation.lower()
    if name == "binary":
        return "binary"
    if name.startswith("utf8_") or "uca1400" in name:
        return None
    prefix = name.split("_", 1)[0]
    return prefix or None
