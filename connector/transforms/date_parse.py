"""Java's `SimpleDateFormat.parse` (lenient, UTC) for Kafka's `TimestampConverter` string input: a pattern
compiled once into a function from text to epoch milliseconds.

As Java's: parsing starts at the beginning and trailing text is ignored; a number runs over all its digits
unless the next pattern element is a number too (then the letter count is its width); fields out of range
roll over (month 13 is January of the next year, `SSS` is a count of milliseconds, so `.123456` adds 123 s);
a missing field is 1970-01-01T00:00:00.000; `h` 12 and `k` 24 read as 0; `yy` with exactly two digits falls
in the 100 years starting 80 years before the pattern was compiled. Implemented letters: y M d H h k K m s S
a z Z X, and E before the day (Java's calendar resolution with a weekday after the day is not modelled).
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import Callable

__all__ = ["ParseError", "compile_parser"]

_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december")
_DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_NUMERIC = set("yMdHhkKmsS")
_OFFSET = re.compile(r"([+-])(\d{2}):?(\d{2})?")
_GMT = re.compile(r"(?:GMT|UTC)(?:([+-])(\d{1,2})(?::?(\d{2}))?)?", re.IGNORECASE)


class ParseError(ValueError):
    """The text does not match the pattern (Java's ParseException)."""


@dataclass(frozen=True)
class _Element:
    letter: str  # "" for literal text
    count: int
    text: str = ""


def _elements(pattern: str) -> list[_Element]:
    out: list[_Element] = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "'":
            end = pattern.find("'", i + 1)
            if end == i + 1:
                out.append(_Element("", 0, "'"))
                i += 2
                continue
            if end < 0:
                raise ValueError(f"format={pattern!r}: Unterminated quote")
            out.append(_Element("", 0, pattern[i + 1:end]))
            i = end + 1
        elif ch.isascii() and ch.isalpha():
            j = i
            while j < len(pattern) and pattern[j] == ch:
                j += 1
            if ch not in _NUMERIC and ch not in "aEzZX":
                raise ValueError(f"format={pattern!r}: parsing the SimpleDateFormat letter {ch!r} is not implemented "
                                 "in binlog-cdc (y M d H h k K m s S E a z Z X are)")
            out.append(_Element(ch, j - i))
            i = j
        else:
            out.append(_Element("", 0, ch))
            i += 1
    letters = [e.letter for e in out if e.letter]
    if "E" in letters and "d" in letters and letters.index("E") > letters.index("d"):
        raise ValueError(f"format={pattern!r}: parsing a weekday (E) after the day (d) is not implemented in "
                         "binlog-cdc (Java's calendar would resolve the date from the weekday); put E first or drop it")
    return out


def _days_from_civil(y: int, m: int, d: int) -> int:
    y -= m <= 2
    era = (y if y >= 0 else y - 399) // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    return era * 146097 + yoe * 365 + yoe // 4 - yoe // 100 + doy - 719468


def _text(text: str, pos: int, names: tuple[str, ...], short: bool) -> tuple[int, int]:
    """The longest name (or 3-letter abbreviation) at pos, case-insensitively: (index, new pos)."""
    best = (-1, pos)
    for i, name in enumerate(names):
        for form in ((name, name[:3]) if short else (name,)):
            if text[pos:pos + len(form)].lower() == form and pos + len(form) > best[1]:
                best = (i, pos + len(form))
    if best[0] < 0:
        raise ParseError("no name")
    return best


def _zone(text: str, pos: int, letter: str) -> tuple[int, int]:
    """A zone at pos as (offset seconds east, new pos)."""
    if letter == "X" and text[pos:pos + 1] == "Z":
        return 0, pos + 1
    m = _GMT.match(text, pos) if letter == "z" else None
    if m is not None:
        if m.group(1) is None:
            return 0, m.end()
        seconds = int(m.group(2)) * 3600 + int(m.group(3) or 0) * 60
        return (-seconds if m.group(1) == "-" else seconds), m.end()
    m = _OFFSET.match(text, pos)
    if m is None:
        raise ParseError("no zone")
    seconds = int(m.group(2)) * 3600 + int(m.group(3) or 0) * 60
    return (-seconds if m.group(1) == "-" else seconds), m.end()


def compile_parser(pattern: str, now: Callable[[], dt.datetime] = dt.datetime.now) -> Callable[[str], int]:
    """A lenient UTC SimpleDateFormat as a function from text to epoch milliseconds."""
    elements = _elements(pattern)
    century_start = now().year - 80  # SimpleDateFormat's default century, fixed when the format is made
    abutting = [e.letter in _NUMERIC and i + 1 < len(elements) and elements[i + 1].letter in _NUMERIC
                for i, e in enumerate(elements)]

    def parse(text: str) -> int:
        fields = {"y": 1970, "M": 1, "d": 1, "H": 0, "m": 0, "s": 0, "S": 0}
        hour12: int | None = None
        pm = False
        offset = 0
        pos = 0
        for i, e in enumerate(elements):
            if not e.letter:
                if not text.startswith(e.text, pos):
                    raise ParseError(pos)
                pos += len(e.text)
                continue
            if e.letter == "M" and e.count >= 3 or e.letter == "E" or e.letter == "a":
                names = _MONTHS if e.letter == "M" else _DAYS if e.letter == "E" else ("am", "pm")
                index, pos = _text(text, pos, names, e.letter != "a")
                if e.letter == "M":
                    fields["M"] = index + 1
                elif e.letter == "a":
                    pm = index == 1
                continue
            if e.letter in "zZX":
                offset, pos = _zone(text, pos, e.letter)
                continue
            end = pos
            sign = 1
            if end < len(text) and text[end] in "+-" and not abutting[i]:
                sign, end = (-1 if text[end] == "-" else 1), end + 1
            limit = end + e.count if abutting[i] else len(text)
            start = end
            while end < min(limit, len(text)) and text[end].isdigit():
                end += 1
            if end == start:
                raise ParseError(pos)
            value = sign * int(text[start:end])
            if e.letter == "y" and e.count <= 2 and end - start == 2 and sign == 1:
                value += century_start // 100 * 100
                if value < century_start:
                    value += 100
            pos = end
            if e.letter in "hK":
                hour12 = 0 if e.letter == "h" and value == 12 else value
            elif e.letter == "k":
                fields["H"] = 0 if value == 24 else value
            else:
                fields[e.letter] = value
        if hour12 is not None:
            fields["H"] = hour12 + (12 if pm else 0)
        year, month0 = fields["y"] + (fields["M"] - 1) // 12, (fields["M"] - 1) % 12
        days = _days_from_civil(year, month0 + 1, 1) + fields["d"] - 1
        seconds = days * 86400 + fields["H"] * 3600 + fields["m"] * 60 + fields["s"] - offset
        return seconds * 1000 + fields["S"]

    return parse
