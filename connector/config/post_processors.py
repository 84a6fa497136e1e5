"""`post.processors=<name>,...`: Debezium's post processors, checked at start into `ReselectSettings`.

Debezium 3.6 reads a processor's class and options from `post.processors.<name>.type` / `.<option>`; the
older spelling `<name>.type` / `<name>.<option>` still works there with a warning ("The configuration used for
post-processors is deprecated"), and here too. The only processor Debezium ships is
`io.debezium.processors.reselect.ReselectColumnsPostProcessor` (connector/dispatch/reselect.py does what it
does); any other class is a Java class a Python process cannot load, refused by name.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass

__all__ = ["RESELECT_TYPE", "ReselectSettings", "legacy_option_prefixes", "post_processors"]

log = logging.getLogger(__name__)

RESELECT_TYPE = "io.debezium.processors.reselect.ReselectColumnsPostProcessor"
_FLAGS = {"reselect.null.values": True, "reselect.unavailable.values": True, "reselect.use.event.key": False}
_OPTIONS = ("type", "reselect.columns.include.list", "reselect.columns.exclude.list",
            "reselect.error.handling.mode", *_FLAGS)


@dataclass(frozen=True)
class ReselectSettings:
    """One ReselectColumnsPostProcessor instance. `columns`: regexes on `db.table:column` (full match, case
    insensitive); `include` says whether they select (include list) or deselect (exclude list); none: every
    column, as Debezium (which takes the include list when both are set)."""

    name: str
    columns: tuple[re.Pattern[str], ...] = ()
    include: bool = True
    null_values: bool = True
    unavailable_values: bool = True
    use_event_key: bool = False
    fail_on_error: bool = False  # reselect.error.handling.mode=fail: stop instead of a warning

    def selects(self, qualified_column: str) -> bool:
        if not self.columns:
            return True
        matched = any(p.fullmatch(qualified_column) for p in self.columns)
        return matched if self.include else not matched


def _names(raw: dict[str, str]) -> list[str]:
    return [n.strip() for n in (raw.get("post.processors") or "").split(",") if n.strip()]


def legacy_option_prefixes(raw: dict[str, str]) -> tuple[str, ...]:
    """`<name>.` of each listed processor: the deprecated spelling's options, known properties here."""
    return tuple(f"{n}." for n in _names(raw))


def _options(raw: dict[str, str], name: str) -> dict[str, str]:
    """Debezium's choice: the `post.processors.<name>.*` options when any is set, else `<name>.*`."""
    for prefix in (f"post.processors.{name}.", f"{name}."):
        options = {k[len(prefix):]: v for k, v in raw.items() if k.startswith(prefix)}
        if options:
            if prefix == f"{name}.":
                log.warning("post.processors: %s.* is Debezium's deprecated spelling; prefer "
                            "post.processors.%s.type and post.processors.%s.<option>", name, name, name)
            return options
    return {}


def _flag(value: str | None, default: bool, where: str, problems: list[str]) -> bool:
    if value is None or not value.strip():
        return default
    text = value.strip().lower()
    if text not in ("true", "false"):
        problems.append(f"{where}={value!r}: must be true or false")
        return default
    return text == "true"


def _patterns(value: str, where: str, problems: list[str]) -> tuple[re.Pattern[str], ...]:
    out = []
    for part in (p.strip() for p in value.split(",")):
        if not part:
            continue
        try:
            out.append(re.compile(part, re.IGNORECASE))
        except re.error as exc:
            problems.append(f"{where}: {part!r} is not a valid regular expression ({exc})")
    return tuple(out)


def post_processors(raw: dict[str, str], problems: list[str]) -> tuple[ReselectSettings, ...]:
    """The processors `post.processors` lists, in its order (Debezium applies them so)."""
    out = []
    for name in _names(raw):
        options = _options(raw, name)
        given = (options.get("type") or "").strip()
        spelled = f"post.processors.{name}" if f"post.processors.{name}.type" in raw else name
        if not given:
            problems.append(f"post.processors lists {name} but post.processors.{name}.type is not set "
                            f"(Debezium: \"Post processor '{name}' is missing '{name}.type'\")")
            continue
        if given != RESELECT_TYPE:
            problems.append(f"{spelled}.type={given}: a post processor is a Java class, which a Python connector "
                            f"cannot load; the one Debezium ships, {RESELECT_TYPE}, is implemented")
            continue
        for option in sorted(options):
            if option not in _OPTIONS:
                problems.append(f"{spelled}.{option}: not an option of ReselectColumnsPostProcessor (options: "
                                f"{', '.join(_OPTIONS[1:])}); remove it")
        include = (options.get("reselect.columns.include.list") or "").strip()
        exclude = (options.get("reselect.columns.exclude.list") or "").strip()
        listed = include or exclude
        columns = _patterns(listed, f"{spelled}.reselect.columns.{'include' if include else 'exclude'}.list",
                            problems)
        mode = (options.get("reselect.error.handling.mode") or "warn").strip().lower()
        if mode not in ("warn", "fail"):
            problems.append(f"{spelled}.reselect.error.handling.mode={mode!r}: must be warn or fail")
        flags = {k: _flag(options.get(k), d, f"{spelled}.{k}", problems) for k, d in _FLAGS.items()}
        settings = ReselectSettings(name, columns, include=bool(include) or not exclude,
                                    null_values=flags["reselect.null.values"],
                                    unavailable_values=flags["reselect.unavailable.values"],
                                    use_event_key=flags["reselect.use.event.key"], fail_on_error=mode == "fail")
        if not (settings.null_values or settings.unavailable_values):
            log.warning("Reselect post-processor disables both null and unavailable columns, no-reselection will "
                        "occur.")
        out.append(settings)
    return tuple(out)
