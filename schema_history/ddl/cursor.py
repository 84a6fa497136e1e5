"""A cursor over a statement's tokens with the small vocabulary the DDL grammar needs."""

from __future__ import annotations

from schema_history.ddl.tokens import Kind, Token
from schema_history.errors import DdlParseError


class Cursor:
    def __init__(self, sql: str, tokens: list[Token]) -> None:
        self.sql = sql
        self.tokens = tokens
        self.i = 0
        # (start, end, replacement) spans of `sql` that Debezium records differently from the text as written
        self.rewrites: list[tuple[int, int, str]] = []

    def rewritten(self, start: int, end: int) -> str:
        """`sql[start:end]` with the recorded rewrites applied."""
        out, at = [], start
        for s, e, replacement in sorted(self.rewrites):
            if s >= at and e <= end:
                out += [self.sql[at:s], replacement]
                at = e
        return "".join(out) + self.sql[at:end]

    # -- looking -------------------------------------------------------------------------------
    def peek(self, k: int = 0) -> Token | None:
        j = self.i + k
        return self.tokens[j] if j < len(self.tokens) else None

    def at_end(self) -> bool:
        return self.i >= len(self.tokens)

    def at_word(self, *words: str, k: int = 0) -> bool:
        tok = self.peek(k)
        return tok is not None and tok.is_word(*words)

    def at_punct(self, *chars: str, k: int = 0) -> bool:
        tok = self.peek(k)
        return tok is not None and tok.is_punct(*chars)

    def at_words(self, *words: str) -> bool:
        return all(self.at_word(w, k=n) for n, w in enumerate(words))

    # -- consuming ------------------------------------------------------------------------------
    def next(self) -> Token:
        tok = self.peek()
        if tok is None:
            raise self.error("unexpected end of statement")
        self.i += 1
        return tok

    def accept_word(self, *words: str) -> Token | None:
        if self.at_word(*words):
            return self.next()
        return None

    def accept_words(self, *words: str) -> bool:
        if self.at_words(*words):
            self.i += len(words)
            return True
        return False

    def expect_word(self, *words: str) -> Token:
        tok = self.accept_word(*words)
        if tok is None:
            raise self.error(f"expected {' or '.join(words)}")
        return tok

    def accept_punct(self, *chars: str) -> Token | None:
        if self.at_punct(*chars):
            return self.next()
        return None

    def expect_punct(self, char: str) -> Token:
        tok = self.accept_punct(char)
        if tok is None:
            raise self.error(f"expected '{char}'")
        return tok

    def accept_equals(self) -> None:
        self.accept_punct("=")

    def identifier(self) -> str:
        tok = self.next()
        if tok.kind in (Kind.WORD, Kind.QUOTED, Kind.DQUOTED) or (tok.kind is Kind.STRING and tok.text.startswith("'")):
            return tok.identifier()
        raise self.error("expected a name", tok)

    def qualified_name(self) -> tuple[str | None, str, int, int]:
        """`db.name` or `name`; returns (db, name, start, end) with the source span."""
        first = self.peek()
        if first is None:
            raise self.error("expected a name")
        name = self.identifier()
        db: str | None = None
        if self.at_punct("."):
            self.next()
            db, name = name, self.identifier()
        last = self.tokens[self.i - 1]
        return db, name, first.start, last.end

    def skip_group(self) -> str:
        """Skip a balanced `( ... )` starting at the cursor; returns its inner source text."""
        open_tok = self.expect_punct("(")
        depth = 1
        while True:
            tok = self.next()
            if tok.is_punct("("):
                depth += 1
            elif tok.is_punct(")"):
                depth -= 1
                if depth == 0:
                    return self.sql[open_tok.end:tok.start]

    def skip_to_element_end(self) -> None:
        """Skip to the `,` or `)` that ends the current list element (not consuming it)."""
        while not self.at_end():
            if self.at_punct(",", ")"):
                return
            if self.at_punct("("):
                self.skip_group()
            else:
                self.next()

    def error(self, message: str, tok: Token | None = None) -> DdlParseError:
        tok = tok or self.peek()
        pos = tok.start if tok is not None else len(self.sql)
        near = f" near '{tok.text}'" if tok is not None else ""
        return DdlParseError(message + near, self.sql, pos)
