"""A string that never shows itself in logs, reprs or tracebacks."""

from __future__ import annotations

import re
from typing import Callable


class Secret:
    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "Secret('********')"

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)

    def __bool__(self) -> bool:
        return bool(self._value)


# Debezium's Configuration.PASSWORD_PATTERN: property names whose values are masked in logs (full match).
DEFAULT_SANITIZE_PATTERN = (r".*secret$|.*password$|.*sasl\.jaas\.config$|.*basic\.auth\.user\.info|"
                            r".*registry\.auth\.client-secret|.*credentials\.json$|.*connectionstring$|"
                            r".*connection\.string$")
_DEFAULT = re.compile(DEFAULT_SANITIZE_PATTERN, re.IGNORECASE)
MASK = "********"


def is_sensitive(name: str) -> bool:
    """Whether Debezium's default pattern masks `name` (case-insensitive, as its static PASSWORD_PATTERN)."""
    return _DEFAULT.fullmatch(name) is not None


def sanitizer(custom: str | None) -> Callable[[str], bool]:
    """Debezium's Configuration.withMaskedPasswords: `custom.sanitize.pattern` when set, else the default,
    compiled from its text (so case-sensitive, as Debezium's Pattern.compile(String)); a name is masked when the
    whole name matches. The custom pattern replaces the default: it must name the password properties too."""
    pattern = re.compile(custom if custom else DEFAULT_SANITIZE_PATTERN)
    return lambda name: pattern.fullmatch(name) is not None
