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


def transform_settings(raw: Mapping[str, str], header_format: str, problems: list[str]) -> TransformSettings:
    """Every `transforms.*`/`predicates.*` property checked; problems are appended, one per property."""
    codec = HeaderCodec(HeaderFormat(header_format))
    predicates: list[PredicateSpec] = []
    for name in _names(raw, "predicates"):
        prefix = f"predicates.{name}."
        cls = raw.get(prefix + "type")
        if not cls:
            problems.append(f"{prefix}type is required (predicates lists {name})")
            continue
        try:
            key = _resolve("predicate", prefix + "type", cls.strip(), PREDICATES, REFUSED_PREDICATES)
        except ValueError as exc:
            problems.append(str(exc))
            continue
        assert key is not None
        options = _options(prefix, raw, PREDICATES[key], key, (), problems)
        if options is not None and _built(PREDICATES[key], options, codec, prefix, problems):
            predicates.append(PredicateSpec(name, key, tuple(options.items())))
    known_predicates = {p.name for p in predicates} | set(_names(raw, "predicates"))
    transforms: list[TransformSpec] = []
    for name in _names(raw, "transforms"):
        prefix = f"transforms.{name}."
        cls = raw.get(prefix + "type")
        if not cls:
            problems.append(f"{prefix}type is required (transforms lists {name})")
            continue
        try:
            key = _resolve("transform", prefix + "type", cls.strip(), TRANSFORMS, REFUSED_TRANSFORMS)
        except ValueError as exc:
            problems.append(str(exc))
            continue
        assert key is not None
        options = _options(prefix, raw, TRANSFORMS[key], key, ("predicate", "negate"), problems)
        predicate = (raw.get(prefix + "predicate") or "").strip() or None
        negate_text = (raw.get(prefix + "negate") or "false").strip().lower()
        if predicate is not None and predicate not in known_predicates:
            problems.append(f"{prefix}predicate={predicate}: no such predicate; list it in predicates= and set "
                            f"predicates.{predicate}.type")
        if negate_text not in ("true", "false"):
            problems.append(f"{prefix}negate={negate_text!r} must be true or false")
        elif negate_text == "true" and predicate is None:
            problems.append(f"{prefix}negate=true needs {prefix}predicate")
        if options is not None and _built(TRANSFORMS[key], options, codec, prefix, problems):
            transforms.append(TransformSpec(name, key, tuple(options.items()), predicate, negate_text == "true"))
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
