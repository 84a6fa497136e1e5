"""Java's `java.util.regex` in Python's `re`: a pattern's named groups and a `Matcher.replaceFirst` replacement.

Shared by the transforms (RegexRouter, ByLogicalTableRouter) and the regex topic naming strategies
(connector/events/topic_names.py), which take the same Java syntax in their options.
"""

from __future__ import annotations

import re

__all__ = ["java_regex", "java_replacement"]

_JAVA_NAMED_GROUP = re.compile(r"(?<!\\)\(\?<([A-Za-z][A-Za-z0-9]*)>")


def java_regex(text: str) -> re.Pattern[str]:
    """A Java regex compiled as a Python one: Java's named groups `(?<name>...)` become `(?P<name>...)`."""
    return re.compile(_JAVA_NAMED_GROUP.sub(r"(?P<\1>", text))


def java_replacement(text: str) -> str:
    """A `Matcher.replaceFirst` replacement in Python's `re` syntax: `$n`, `${name}`, `\\x` (literal x)."""
    out = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text):
            out.append(text[i + 1].replace("\\", "\\\\"))
            i += 2
        elif ch == "$" and i + 1 < len(text) and text[i + 1] == "{":
            end = text.index("}", i)
            out.append(f"\\g<{text[i + 2:end]}>")
            i = end + 1
        elif ch == "$":
            j = i + 1
            while j < len(text) and text[j].isdigit():
                j += 1
            if j == i + 1:
                raise ValueError(f"illegal group reference in {text!r}")
            out.append(f"\\g<{text[i + 1:j]}>")
            i = j
        else:
            out.append(ch.replace("\\", "\\\\"))
            i += 1
    return "".join(out)
