"""Misspelled property names: `tabel.include.list=inventory.customers` must stop the start, not capture every table.

An unknown connector property within a small edit distance of a property binlog-cdc knows is taken for a typo
of it ("unknown property tabel.include.list; did you mean table.include.list?"). Names further away stay
warnings: Kafka Connect and Debezium pass through properties of their own (converters' and SMTs' options,
`database.*` JDBC settings, `schema.history.internal.producer.*`), which the loaders accept by pattern before
this check, and a deployment may carry properties of other tools.
"""

from __future__ import annotations

import re
from typing import Iterable

__all__ = ["edit_distance", "is_user_named", "likely_typo"]

# Names whose parts the user chooses: SMT/predicate/converter instances and their options, Kafka client options,
# column lists in the name, JDBC driver settings (camelCase: database.allowPublicKeyRetrieval, database.sslMode).
_USER_NAMED = re.compile(
    r"(transforms|predicates|converters)(\..*)?|(key|value|header)\.converter\..*|"
    r"schema\.history\.internal\.(producer|consumer)\..*|signal\.(kafka\.)?consumer\..*|column\..*\d.*|"
    r"column\.mask\.hash\..*|snapshot\.select\.statement\.overrides\..*|(database|driver)\.[A-Za-z0-9]*[A-Z][A-Za-z0-9]*")


def is_user_named(name: str) -> bool:
    return _USER_NAMED.fullmatch(name) is not None


def edit_distance(a: str, b: str, limit: int) -> int:
    """Optimal string alignment distance (insert, delete, substitute, swap two neighbours), cut off: any
    distance above `limit` comes back as `limit + 1`."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cost = 0 if ca == cb else 1
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                current[j] = min(current[j], previous2[j - 2] + 1)
        if min(current) > limit:
            return limit + 1
        previous2, previous = previous, current
    return min(previous[-1], limit + 1)


def _limit(name: str) -> int:
    # Two edits for names of ten characters or more (`tabel.include.list`, `snapshot.mdoe`); one below
    # (`name`, `tasks.max` are short enough that two edits reach unrelated words).
    return 2 if len(name) >= 10 else 1


def likely_typo(name: str, known: Iterable[str]) -> str | None:
    """The known property `name` is most likely a misspelling of, or None when none is close."""
    lowered = name.lower()
    best: tuple[int, str] | None = None
    limit = _limit(name)
    for candidate in known:
        distance = edit_distance(lowered, candidate.lower(), limit)
        if distance <= limit and (best is None or distance < best[0]):
            best = (distance, candidate)
    return best[1] if best else None
