"""`transforms=...` / `predicates=...` (Connect and Debezium Server spelling alike) → a checked chain spec.

Parsing happens once, at start: every class and option is resolved against `catalog.py` and built once,
so a bad configuration stops the start with one problem per property naming it and the fix. The result
(`TransformSettings`) is plain data; `chain.build_chain` turns it into the transform objects.
"""

from __future__ import annotations

from typing import Mapping

from connector.events.records import HeaderFormat
from connector.transforms.catalog import (PREDICATES, REFUSED_OPTIONS, REFUSED_PREDICATES, REFUSED_TRANSFORMS,
                                          TRANSFORMS, Kind, short_name)
from connector.config.transform_specs import PredicateSpec, TransformSettings, TransformSpec
from connector.transforms.headers import HeaderCodec

__all__ = ["transform_settings"]


def _names(raw: Mapping[str, str], key: str) -> list[str]:
    return [n.strip() for n in (raw.get(key) or "").split(",") if n.strip()]


def _resolve(kind_word: str, prop: str, cls: str, implemented: Mapping[str, Kind],
             refused: Mapping[str, str]) -> str | None:
    """The catalog key of class `cls`, or raise ValueError naming the property and the fix."""
    if cls in refused:  # full names first: Debezium's scripting Filter vs Kafka's Filter
        raise ValueError(f"{prop}={cls}: {refused[cls]}")
    short = short_name(cls)
    if short in implemented:
        return short
    if short in refused:
        raise ValueError(f"{prop}={cls}: {refused[short]}")
    raise ValueError(f"{prop}={cls} is not a {kind_word} binlog-cdc knows; supported: "
                     f"{', '.join(sorted(implemented))}")


def _options(prefix: str, raw: Mapping[str, str], kind: Kind, cls: str, generic: tuple[str, ...],
             problems: list[str]) -> dict[str, str] | None:
    given = {k[len(prefix):]: v for k, v in raw.items() if k.startswith(prefix)}
    given.pop("type", None)
    bad = False
    for option in sorted(given):
        if option in generic or option in kind.options:
            continue
        reason = REFUSED_OPTIONS.get((cls, option))
        problems.append(f"{prefix}{option}: " + (reason or f"not an option of {cls} in binlog-cdc (options: "
                                                  f"{', '.join(sorted(kind.options)) or 'none'}); remove it"))
        bad = True
    out: dict[str, str] = {}
    for option, default in kind.options.items():
        value = given.get(option, default)
        if value is None:
            problems.append(f"{prefix}{option} is required by {cls}")
            bad = True
        else:
            out[option] = value
    return None if bad else out


def _checked(family: str, name: str, raw: Mapping[str, str], implemented: Mapping[str, Kind],
             refused: Mapping[str, str], generic: tuple[str, ...], codec: HeaderCodec,
             problems: list[str]) -> tuple[str, dict[str, str]] | None:
    """`<family>.<name>.type` resolved and its options checked (and built once): (catalog key, options)."""
    prefix = f"{family}.{name}."
    cls = raw.get(prefix + "type")
    if not cls:
        problems.append(f"{prefix}type is required ({family} lists {name})")
        return None
    try:
        key = _resolve(family[:-1], prefix + "type", cls.strip(), implemented, refused)
    except ValueError as exc:
        problems.append(str(exc))
        return None
    assert key is not None
    options = _options(prefix, raw, implemented[key], key, generic, problems)
    if options is None or not _built(implemented[key], options, codec, prefix, problems):
        return None
    return key, options


def transform_settings(raw: Mapping[str, str], header_format: str, problems: list[str]) -> TransformSettings:
    """Every `transforms.*`/`predicates.*` property checked; problems are appended, one per property."""
    codec = HeaderCodec(HeaderFormat(header_format))
    predicates: list[PredicateSpec] = []
    for name in _names(raw, "predicates"):
        checked = _checked("predicates", name, raw, PREDICATES, REFUSED_PREDICATES, (), codec, problems)
        if checked is not None:
            predicates.append(PredicateSpec(name, checked[0], tuple(checked[1].items())))
    known_predicates = set(_names(raw, "predicates"))
    transforms: list[TransformSpec] = []
    for name in _names(raw, "transforms"):
        prefix = f"transforms.{name}."
        checked = _checked("transforms", name, raw, TRANSFORMS, REFUSED_TRANSFORMS, ("predicate", "negate"), codec,
                           problems)
        predicate = (raw.get(prefix + "predicate") or "").strip() or None
        negate_text = (raw.get(prefix + "negate") or "false").strip().lower()
        if predicate is not None and predicate not in known_predicates:
            problems.append(f"{prefix}predicate={predicate}: no such predicate; list it in predicates= and set "
                            f"predicates.{predicate}.type")
        if negate_text not in ("true", "false"):
            problems.append(f"{prefix}negate={negate_text!r} must be true or false")
        elif negate_text == "true" and predicate is None:
            problems.append(f"{prefix}negate=true needs {prefix}predicate")
        if checked is not None:
            transforms.append(TransformSpec(name, checked[0], tuple(checked[1].items()), predicate,
                                            negate_text == "true"))
    for key in raw:
        if key.startswith("transforms.") and key.split(".")[1] not in _names(raw, "transforms"):
            problems.append(f"{key}: transform {key.split('.')[1]!r} is not listed in transforms=; list it or remove "
                            f"the property")
        if key.startswith("predicates.") and key.split(".")[1] not in _names(raw, "predicates"):
            problems.append(f"{key}: predicate {key.split('.')[1]!r} is not listed in predicates=; list it or remove "
                            f"the property")
    return TransformSettings(tuple(transforms), tuple(predicates))


def _built(kind: Kind, options: dict[str, str], codec: HeaderCodec, prefix: str, problems: list[str]) -> bool:
    """Build the object once now, so that a bad value stops the start rather than the first record."""
    try:
        kind.build(options, codec)
    except ValueError as exc:
        problems.append(f"{prefix}{exc}")
        return False
    return True
