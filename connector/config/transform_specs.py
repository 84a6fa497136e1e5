"""The checked `transforms=` / `predicates=` configuration as plain data (built by
connector/transforms/config.py, turned into objects by connector/transforms/chain.py)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["PredicateSpec", "TransformSettings", "TransformSpec"]


@dataclass(frozen=True)
class PredicateSpec:
    name: str
    cls: str  # short name, a key of catalog.PREDICATES
    options: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class TransformSpec:
    name: str
    cls: str  # short name, a key of catalog.TRANSFORMS
    options: tuple[tuple[str, str], ...]  # every option, defaults filled in
    predicate: str | None = None
    negate: bool = False


@dataclass(frozen=True)
class TransformSettings:
    transforms: tuple[TransformSpec, ...] = ()
    predicates: tuple[PredicateSpec, ...] = ()
