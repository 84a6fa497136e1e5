"""A MySQL/MariaDB tokenizer that keeps each token's original text.

Debezium records several attributes exactly as written (default value literals such as `'it''s'`
or `1e3`, type keywords), so tokens carry their source text and position; `upper` is the keyword
form used for matching. Versioned comments `/*!50001 ... */` and MariaDB `/*M! ... */` are
unwrapped (their content is executed by the server); all other comments are skipped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum


class Kind(Enum):
    WORD = "word"  # keyword or unquoted identifier
    QUOTED = "quoted"  # `identifier` (backticks)
    DQUOTED = "dquoted"  # "text": a string in MySQL's default sql_mode, an identifier with ANSI_QUOTES
    STRING = "string"  # 'text', incl. _charset'text' / N'text' introducers
    NUMBER = "number"
    BITS = "bits"  # b'0101'
    HEX = "hex"  # x'0f' / 0x0f
    PUNCT = "punct"
    VARIABLE = "variable"  # @x, @@x


@dataclass(frozen=True)
class Token:
    kind: Kind
    text: str  # exactly as written
    start: int
    end: int

    @property
    def upper(self) -> str:
        return self.text.upper() if self.kind is Kind.WORD else self.text

    def is_word(self, *words: str) -> bool:
        return self.kind is Kind.WORD and self.text.upper() in words

    def is_punct(self, *chars: str) -> bool:
        return self.kind is Kind.PUNCT and self.text in chars

    def identifier(self) -> str:
        """The identifier's name: backticks removed, doubled backticks undone."""
        if self.kind is Kind.QUOTED:
            return self.text[1:-1].replace("``", "`")
        if self.kind is Kind.DQUOTED:
            return self.text[1:-1].replace('""', '"')
        if self.kind is Kind.STRING and self.text.startswith("'"):
            return self.text[1:-1].replace("''", "'")
        return self.text


_VERSIONED = re.compile(r"/\*(?:!\d{0,6}|M!\d{0,6})")
_NUMBER = re.compile(r"(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?")
_WORD = re.compile(r"[A-Za-z0-9_$\u0080-\uffff]+")
_VARIABLE = re.compile(r"@@?(?:[A-Za-z0-9_$.]+|`[^`]*`|'[^']*')")
_PUNCT3 = ("<=>",)
_PUNCT2 = ("<=", ">=", "<>", "!=", "||", "&&", ":=", "<<", ">>", "->")


class TokenizeError(ValueError):
    def __init__(self, message: str, position: int) -> None:
        self.position = position
        super().__init__(message)


def _quoted_end(sql: str, i: int, quote: str) -> int:
    """Index just past the closing quote of a literal starting at `i` (doubled quotes, backslashes)."""
    j = i + 1
    n = len(sql)
    while j < n:
        c = sql[j]
        if c == "\\" and quote != "`":
            j += 2
            continue
        if c == quote:
            if j + 1 < n and sql[j + 1] == quote:
                j += 2
                continue
            return j + 1
        j += 1
    raise TokenizeError(f"unterminated {quote}-quoted text", i)


def tokenize(sql: str) -> list[Token]:
    tokens: list[Token] = []
    i = 0
    n = len(sql)
    while i < n:
        c = sql[i]
        if c.isspace():
            i += 1
            continue
        if sql.startswith("/*", i):
            m = _VERSIONED.match(sql, i)
            if m:  # executable comment: drop the markers, keep the content
                i = m.end()
                continue
            end = sql.find("*/", i + 2)
            if end < 0:
                raise TokenizeError("unterminated comment", i)
            i = end + 2
            continue
        if sql.startswith("*/", i):  # end of an executable comment
            i += 2
            continue
        if c == "#" or (sql.startswith("--", i) and (i + 2 >= n or sql[i + 2].isspace())):
            end = sql.find("\n", i)
            i = n if end < 0 else end + 1
            continue
        if c == "`":
            j = _quoted_end(sql, i, "`")
            tokens.append(Token(Kind.QUOTED, sql[i:j], i, j))
            i = j
            continue
        if c == "'":
            j = _quoted_end(sql, i, "'")
            tokens.append(Token(Kind.STRING, sql[i:j], i, j))
            i = j
            continue
        if c == '"':
            j = _quoted_end(sql, i, '"')
            tokens.append(Token(Kind.DQUOTED, sql[i:j], i, j))
            i = j
            continue
        if c in "bBxX" and i + 1 < n and sql[i + 1] == "'":
            j = _quoted_end(sql, i + 1, "'")
            tokens.append(Token(Kind.BITS if c in "bB" else Kind.HEX, sql[i:j], i, j))
            i = j
            continue
        if c in "nN" and i + 1 < n and sql[i + 1] == "'":
            j = _quoted_end(sql, i + 1, "'")
            tokens.append(Token(Kind.STRING, sql[i:j], i, j))
            i = j
            continue
        if c == "0" and i + 1 < n and sql[i + 1] in "xXbB":
            m = _WORD.match(sql, i)
            assert m is not None
            kind = Kind.HEX if sql[i + 1] in "xX" else Kind.BITS
            tokens.append(Token(kind, m.group(), i, m.end()))
            i = m.end()
            continue
        if c.isdigit() or (c == "." and i + 1 < n and sql[i + 1].isdigit()):
            m = _NUMBER.match(sql, i)
            assert m is not None
            w = _WORD.match(sql, i)
            if w and w.end() > m.end() and not sql[m.end()].isdigit() and "." not in m.group():
                # identifiers may start with digits (e.g. `1col`)
                tokens.append(Token(Kind.WORD, w.group(), i, w.end()))
                i = w.end()
                continue
            tokens.append(Token(Kind.NUMBER, m.group(), i, m.end()))
            i = m.end()
            continue
        if c == "_" and i + 1 < n:
            m = _WORD.match(sql, i)
            assert m is not None
            if m.end() < n and sql[m.end()] == "'":  # charset introducer: _utf8mb4'text'
                j = _quoted_end(sql, m.end(), "'")
                tokens.append(Token(Kind.STRING, sql[i:j], i, j))
                i = j
                continue
        if c == "@":
            m = _VARIABLE.match(sql, i)
            if m:
                tokens.append(Token(Kind.VARIABLE, m.group(), i, m.end()))
                i = m.end()
                continue
        m = _WORD.match(sql, i)
        if m:
            tokens.append(Token(Kind.WORD, m.group(), i, m.end()))
            i = m.end()
            continue
        for p in _PUNCT3 + _PUNCT2:
            if sql.startswith(p, i):
                tokens.append(Token(Kind.PUNCT, p, i, i + len(p)))
                i += len(p)
                break
        else:
            tokens.append(Token(Kind.PUNCT, c, i, i + 1))
            i += 1
    return tokens


def split_statements(sql: str) -> list[str]:
    """Split on top-level `;` (outside quotes and comments), dropping empty pieces."""
    out: list[str] = []
    start = 0
    for tok in tokenize(sql):
        if tok.is_punct(";"):
            piece = sql[start:tok.start].strip()
            if piece:
                out.append(piece)
            start = tok.end
    tail = sql[start:].strip()
    if tail:
        out.append(tail)
    return out
