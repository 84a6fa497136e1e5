"""An `additional-conditions` filter checked with sqlglot (MySQL dialect) before it may reach SQL.

Accepted: exactly one boolean expression over the table's own columns (comparisons, AND/OR/NOT, IN,
BETWEEN, LIKE, IS [NOT] NULL, functions of columns and literals). Refused: anything that parses to more
than one statement (`qty > 1; DROP TABLE t`), a statement instead of an expression, a subquery (which
could read other tables), comments (which could hide text from a reviewer or change how the rest parses),
variables, and columns the table does not have. The query gets the expression re-rendered by sqlglot,
never the text as written.
"""

from __future__ import annotations

from typing import Iterable

import sqlglot
from sqlglot import exp

__all__ = ["FilterRejected", "checked_filter"]

DIALECT = "mysql"
# Nodes with a truth value at the top of a WHERE clause.
_BOOLEAN = (exp.Predicate, exp.Connector, exp.Not, exp.Boolean, exp.Paren, exp.In, exp.Between, exp.Like,
            exp.Is, exp.Xor)
# Never inside a filter: other statements, subqueries, variables and placeholders.
_FORBIDDEN = (exp.Query, exp.Subquery, exp.Command, exp.DDL, exp.DML, exp.Parameter, exp.Placeholder,
              exp.SessionParameter, exp.Set, exp.Use)


class FilterRejected(ValueError):
    pass


def checked_filter(text: str, columns: Iterable[str]) -> exp.Expression:
    """The filter as a sqlglot expression, or FilterRejected saying why it is not one boolean expression
    over `columns`."""
    if "--" in text or "/*" in text or "#" in text:
        raise FilterRejected("comments are not allowed in a filter")
    try:
        parsed = sqlglot.parse(text, read=DIALECT)
    except sqlglot.errors.SqlglotError as exc:
        raise FilterRejected(f"not valid SQL ({str(exc).splitlines()[0]})") from None
    statements = [p for p in parsed if p is not None]
    if len(statements) != 1:
        raise FilterRejected("a filter is one expression, not several statements")
    tree = statements[0]
    if not isinstance(tree, _BOOLEAN):
        raise FilterRejected(f"not a boolean expression ({type(tree).__name__})")
    known = {c.lower() for c in columns}
    for node in tree.walk():
        if isinstance(node, _FORBIDDEN):
            raise FilterRejected(f"{type(node).__name__} is not allowed in a filter")
        if node.comments:
            raise FilterRejected("comments are not allowed in a filter")
        if isinstance(node, exp.Column):
            if node.table:
                raise FilterRejected(f"column {node.sql(dialect=DIALECT)} names another table")
            if node.name.lower() not in known:
                raise FilterRejected(f"the table has no column '{node.name}'")
    return tree
