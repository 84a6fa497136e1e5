"""A string that never shows itself in logs, reprs or tracebacks."""

from __future__ import annotations


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


# Debezium's `custom.sanitize.pattern` default: property names whose values are masked in logs.
SENSITIVE_SUFFIXES = ("password", "secret", "sasl.jaas.config", "basic.auth.user.info", "registry.auth.client-secret")


def is_sensitive(name: str) -> bool:
    lowered = name.lower()
    return any(lowered.endswith(s) for s in SENSITIVE_SUFFIXES)
