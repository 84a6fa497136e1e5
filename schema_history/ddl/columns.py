"""One column definition (`name type constraints...`) as Debezium's `ColumnDefinitionParserListener`
and `DefaultValueParserListener` read it.

Rules reproduced (each checked against real Debezium 3.6 output, `tests/fixtures/golden/ddl*`):
* type name = written keywords upper-cased + suffixes in Debezium's fixed order; ZEROFILL implies
  UNSIGNED; SERIAL is `BIGINT UNSIGNED` NOT NULL AUTO_INCREMENT UNIQUE;
* length/scale only when written, except DECIMAL/NUMERIC (10, 0), bare BIT/NCHAR (1); ENUM length 1, SET 2n-1;
* charset from `CHARACTER SET`, else from a `COLLATE` anywhere in the definition; national
  types always `utf8`; unresolved charsets are filled from the table default later;
* AUTO_INCREMENT and `ON UPDATE CURRENT_TIMESTAMP` set both autoIncremented and generated;
  `GENERATED ALWAYS AS` does not;
* default expressions keep the literal's text minus its outer quotes (no unescaping, charset
  introducers dropped, `b'101'` -> `101`, `X'0A'` -> `0A`);
  CURRENT_TIMESTAMP/NOW()/LOCALTIMESTAMP become `1970-01-01 00:00:00`; `(expr)` has a default but no expression;
  a column that is nullable has an implicit NULL default (`ColumnEditor.optional`).
"""

from __future__ import annotations

from dataclasses import dataclass

from schema_history.ddl.cursor import Cursor
from schema_history.ddl.tokens import Kind
from schema_history.ddl.type_names import Family, Jdbc, TypeEntry, candidates, collation_charset
from schema_history.model import Column

_EPOCH = "1970-01-01 00:00:00"
_CURRENT_TS = ("CURRENT_TIMESTAMP", "NOW", "LOCALTIME", "LOCALTIMESTAMP")
# Words that end a column definition inside ALTER TABLE (`... AFTER x`).
_POSITION_WORDS = ("FIRST", "AFTER")


@dataclass
class ColumnSpec:
    """A parsed column definition before the table's charset is known."""

    name: str
    jdbc_type: int = Jdbc.OTHER
    type_name: str = ""
    length: int = -1
    scale: int | None = None
    charset: str | None = None
    optional: bool | None = None  # None: not written
    auto_incremented: bool = False
    generated: bool = False
    has_default: bool = False
    default_expr: str | None = None
    enum_values: tuple[str, ...] = ()
    primary_key: bool = False
    unique: bool = False
    serial: bool = False
    after: str | None = None
    first: bool = False
    binary: bool = False  # the `BINARY` attribute of string types (`CHAR(3) BINARY`)
    comment: str | None = None
    system_period: str | None = None  # MariaDB `GENERATED ALWAYS AS ROW START|END`: "START" / "END"
    versioned: bool = False  # MariaDB column-level `WITH SYSTEM VERSIONING` (makes the table versioned)

    def set_default(self, expr: str | None) -> None:
        self.has_default = True
        self.default_expr = expr

    def to_column(self, position: int = 0) -> Column:
        optional = self.optional
        if optional is None:
            optional = not self.serial
        has_default = self.has_default or optional  # nullable columns default to NULL
        return Column(
            name=self.name,
            position=position,
            jdbc_type=self.jdbc_type,
            type_name=self.type_name,
            type_expression=self.type_name,
            charset_name=self.charset,
            length=self.length if self.length >= 0 else None,
            scale=self.scale,
            optional=optional,
            auto_incremented=self.auto_incremented,
            generated=self.generated,
            has_default_value=has_default,
            default_value_expression=self.default_expr if has_default else None,
            enum_values=self.enum_values,
            comment=self.comment,
        )


def parse_column(cur: Cursor, name: str) -> ColumnSpec:
    spec = ColumnSpec(name=name)
    _parse_type(cur, spec)
    _parse_constraints(cur, spec)
    return spec


# -- data type ---------------------------------------------------------------------------------

def _match_type(cur: Cursor) -> TypeEntry:
    first = cur.peek()
    if first is None or first.kind is not Kind.WORD:
        raise cur.error("expected a data type")
    for entry in candidates(first.upper):
        if all(cur.at_word(w, k=n) for n, w in enumerate(entry.words)):
            cur.i += len(entry.words)
            return entry
    raise cur.error("unrecognized data type", first)


def _int(cur: Cursor) -> int:
    tok = cur.next()
    if tok.kind is not Kind.NUMBER:
        raise cur.error("expected a number", tok)
    text = tok.text
    if "." in text:  # FLOAT(10.2): Debezium keeps the integer part, 10 when it is 0
        whole = text.split(".", 1)[0]
        return int(whole) if whole and int(whole) != 0 else 10
    return min(int(float(text)) if "e" in text.lower() else int(text), 2**31 - 1)


def _dimensions(cur: Cursor) -> tuple[int | None, int | None]:
    if not cur.accept_punct("("):
        return None, None
    length = _int(cur)
    scale = None
    if cur.accept_punct(","):
        scale = _int(cur)
    cur.expect_punct(")")
    return length, scale


def _charset_clauses(cur: Cursor, spec: ColumnSpec) -> str | None:
    """`[BINARY] [CHARACTER SET x] [COLLATE y]` after a string type: the charset they name."""
    charset = collation = None
    while True:
        if cur.accept_words("CHARACTER", "SET") or cur.accept_word("CHARSET"):
            charset = cur.identifier()
        elif cur.accept_word("COLLATE"):
            collation = cur.identifier()
        elif not spec.binary and cur.accept_word("BINARY"):
            spec.binary = True
        elif cur.accept_word("ASCII", "UNICODE", "BYTE"):
            pass  # MySQL's shorthands for latin1/ucs2/binary: Debezium 3.6 keeps the default charset (golden ddl_mysql_attrs)
        else:
            break
    if charset is None and collation is not None:
        charset = collation_charset(collation)
    return charset


def _parse_type(cur: Cursor, spec: ColumnSpec) -> None:
    entry = _match_type(cur)
    words = list(entry.words)
    spec.jdbc_type = entry.jdbc
    family = entry.family
    suffix_seen: set[str] = set()

    if family is Family.NUMERIC:
        if "PRECISION" in entry.suffixes and cur.accept_word("PRECISION"):
            suffix_seen.add("PRECISION")
        length, scale = _dimensions(cur)
        while cur.at_word("SIGNED", "UNSIGNED", "ZEROFILL"):
            suffix_seen.add(cur.next().upper)
        if "ZEROFILL" in suffix_seen:
            suffix_seen.add("UNSIGNED")
        spec.length = length if length is not None else entry.default_length
        spec.scale = scale if scale is not None else entry.default_scale
    elif family in (Family.STRING, Family.NATIONAL):
        length, _ = _dimensions(cur)
        if length is not None:
            spec.length = length
        elif entry.default_length >= 0:
            spec.length = entry.default_length
        charset = _charset_clauses(cur, spec)
        if spec.binary:
            suffix_seen.add("BINARY")
        if entry.jdbc in (Jdbc.NCHAR, Jdbc.NVARCHAR):
            spec.charset = "utf8"  # national types always use utf8, whatever is written
        elif family is Family.STRING:
            spec.charset = charset
    elif family is Family.DIMENSION:
        length, _ = _dimensions(cur)
        if length is not None:
            spec.length = length
        elif entry.default_length >= 0:
            spec.length = entry.default_length
    elif family is Family.COLLECTION:
        cur.expect_punct("(")
        values: list[str] = []
        while True:
            tok = cur.next()
            if tok.kind not in (Kind.STRING, Kind.DQUOTED):
                raise cur.error("expected an ENUM/SET value", tok)
            values.append(tok.text)
            if cur.accept_punct(")"):
                break
            cur.expect_punct(",")
        spec.enum_values = tuple(values)
        spec.charset = _charset_clauses(cur, spec)
        if spec.binary:
            suffix_seen.add("BINARY")
        spec.length = max(0, len(values) * 2 - 1) if words == ["SET"] else 1
    elif family is Family.SIMPLE:
        if words == ["SERIAL"]:
            spec.serial = True
            spec.auto_incremented = spec.generated = True
            spec.unique = True
    # SPATIAL: nothing more in the type itself

    name = " ".join(words)
    for suffix in entry.suffixes:
        if suffix in suffix_seen:
            name += " " + suffix
    if words == ["SERIAL"]:
        name = "BIGINT UNSIGNED"
    spec.type_name = name.upper()


# -- constraints -------------------------------------------------------------------------------

def parse_default(cur: Cursor, spec: ColumnSpec) -> None:
    """`DEFAULT ...`, as `DefaultValueParserListener.enterDefaultValue` records it."""
    if cur.accept_word("NULL"):
        return
    sign = ""
    if cur.at_punct("-", "+", "~", "!"):
        sign = cur.next().text
    tok = cur.peek()
    if tok is None:
        raise cur.error("expected a default value")
    nxt = cur.peek(1)
    if tok.kind is Kind.WORD and tok.text.startswith("_") and nxt is not None and nxt.kind in (
            Kind.HEX, Kind.BITS, Kind.STRING):
        cur.next()  # charset introducer apart from its literal (`_latin1 x'41'`, `_binary 'x'`): the literal counts
        tok = nxt
    # a double-quoted default arrives single-quoted: parser.single_quote_strings, as Debezium's DdlNormalizer
    if tok.kind in (Kind.STRING, Kind.DQUOTED):
        first = _literal_text(cur.next().text)
        text = first
        while cur.peek() is not None and cur.peek().kind in (Kind.STRING, Kind.DQUOTED):  # 'a' 'b'
            text += _literal_text(cur.next().text)
        if cur.accept_word("COLLATE"):
            cur.identifier()
            text = first
        if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
            text = text[1:-1]
        spec.set_default(sign + text)
    elif tok.kind is Kind.NUMBER:
        spec.set_default(sign + cur.next().text)
    elif tok.kind is Kind.BITS:
        text = cur.next().text
        spec.set_default(text[2:-1] if text[1] == "'" else text[2:])
    elif tok.kind is Kind.HEX:
        text = cur.next().text  # X'0A' -> 0A, like b'101' -> 101
        spec.set_default(text[2:-1] if text[1] == "'" else text[2:])
    elif tok.is_word("TRUE", "FALSE"):
        spec.set_default(cur.next().text)
    elif tok.is_word(*_CURRENT_TS):
        word = cur.next()
        start = word.start
        if cur.at_punct("("):
            cur.skip_group()
        text = cur.sql[start:cur.tokens[cur.i - 1].end].replace(" ", "")
        del text  # every CURRENT_TIMESTAMP spelling (NOW(), LOCALTIMESTAMP, ...) is recorded as the epoch
        spec.set_default(_EPOCH)
    elif tok.is_punct("("):
        cur.skip_group()
        spec.set_default(None)
    elif tok.kind is Kind.WORD:
        # function calls and other expressions: a default exists, its value is computed
        cur.next()
        if cur.at_punct("("):
            cur.skip_group()
        spec.set_default(None)
    else:
        raise cur.error("unsupported default value", tok)


def _literal_text(text: str) -> str:
    """A string literal without its charset introducer (`_utf8mb4'x'`, `N'x'` -> `'x'`)."""
    if text[0] not in "'\"":
        return text[min(i for i in (text.find("'"), text.find('"')) if i >= 0):]
    return text


def _on_update(cur: Cursor, spec: ColumnSpec) -> None:
    tok = cur.next()
    if not tok.is_word(*_CURRENT_TS):
        raise cur.error("expected CURRENT_TIMESTAMP after ON UPDATE", tok)
    if cur.at_punct("("):
        cur.skip_group()
    spec.auto_incremented = spec.generated = True


def _references(cur: Cursor) -> None:
    cur.qualified_name()
    if cur.at_punct("("):
        cur.skip_group()
    while True:
        if cur.accept_word("MATCH"):
            cur.next()
        elif cur.at_word("ON") and cur.at_word("DELETE", "UPDATE", k=1):
            cur.i += 2
            if cur.accept_words("SET", "NULL") or cur.accept_words("SET", "DEFAULT") or cur.accept_words("NO", "ACTION"):
                continue
            cur.next()
        else:
            return


def _parse_constraints(cur: Cursor, spec: ColumnSpec) -> None:
    while not cur.at_end() and not cur.at_punct(",", ")", ";"):
        if cur.at_word(*_POSITION_WORDS):
            return
        if cur.accept_words("NOT", "NULL"):
            spec.optional = False
        elif cur.accept_word("NULL"):
            spec.optional = True
        elif cur.accept_word("DEFAULT"):
            parse_default(cur, spec)
        elif cur.accept_word("AUTO_INCREMENT"):
            spec.auto_incremented = spec.generated = True
        elif cur.at_words("ON", "UPDATE"):
            cur.i += 2
            _on_update(cur, spec)
        elif cur.accept_words("PRIMARY", "KEY") or cur.accept_word("KEY"):
            spec.primary_key = True
            spec.optional = False
        elif cur.accept_word("UNIQUE"):
            cur.accept_word("KEY", "INDEX")
            spec.unique = True
        elif cur.accept_word("COMMENT"):
            spec.comment = cur.next().identifier()
        elif cur.accept_word("COLLATE"):
            collation = cur.identifier()  # anywhere in the definition, it decides the charset
            if spec.charset is None and spec.jdbc_type not in (Jdbc.NCHAR, Jdbc.NVARCHAR):
                spec.charset = collation_charset(collation)
        elif cur.accept_words("SERIAL", "DEFAULT", "VALUE"):
            spec.serial = True
            spec.auto_incremented = spec.generated = True
            spec.unique = True
        elif cur.accept_words("GENERATED", "ALWAYS") or cur.at_word("AS"):
            cur.expect_word("AS")
            if cur.accept_word("ROW"):  # MariaDB system-versioning period column
                spec.system_period = cur.expect_word("START", "END").upper
                continue
            cur.skip_group()
            cur.accept_word("VIRTUAL", "STORED", "PERSISTENT")
        elif cur.accept_word("CONSTRAINT"):
            if not cur.at_word("CHECK"):
                cur.identifier()
        elif cur.accept_word("CHECK"):
            cur.skip_group()
            cur.accept_words("NOT", "ENFORCED") or cur.accept_word("ENFORCED")
        elif cur.accept_word("REFERENCES"):
            _references(cur)
        elif cur.accept_word("COLUMN_FORMAT", "STORAGE", "SRID"):
            cur.next()
        elif cur.accept_word("ENGINE_ATTRIBUTE", "SECONDARY_ENGINE_ATTRIBUTE"):
            cur.accept_punct("=")  # optional: `SECONDARY_ENGINE_ATTRIBUTE '{}'` is valid MySQL too
            cur.next()
        elif cur.accept_word("COMPRESSED"):
            if cur.accept_punct("="):
                cur.next()
        elif cur.accept_word("VISIBLE", "INVISIBLE", "VIRTUAL", "STORED", "PERSISTENT"):
            pass
        elif cur.accept_words("WITH", "SYSTEM", "VERSIONING"):
            spec.versioned = True
        elif cur.accept_words("WITHOUT", "SYSTEM", "VERSIONING"):
            pass
        elif cur.at_punct("("):
            cur.skip_group()
        else:
            raise cur.error("unsupported column attribute")
