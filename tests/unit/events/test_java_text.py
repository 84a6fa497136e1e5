"""Java number text (Float/Double.toString of Java 17 and 19+) and Jackson string escaping."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from connector.java.text import (
    jackson_string,
    java_double,
    java_double_shortest,
    java_float,
    java_float_shortest,
    to_float32,
)

TABLE = Path(__file__).with_name("java17_tostring.txt")


def _java17_rows() -> list[tuple[str, float, str]]:
    rows = []
    for line in TABLE.read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        kind, bits, text = line.split()
        if kind == "f":
            value = struct.unpack("<f", struct.pack("<I", int(bits, 16)))[0]
        else:
            value = struct.unpack("<d", struct.pack("<Q", int(bits, 16)))[0]
        rows.append((kind, value, text))
    return rows


def test_java17_table_matches_exactly() -> None:
    rows = _java17_rows()
    assert len(rows) > 4000
    wrong = []
    for kind, value, text in rows:
        expected = f'"{text}"' if text in ("NaN", "Infinity", "-Infinity") else text
        got = java_float(value) if kind == "f" else java_double(value)
        if got != expected:
            wrong.append((kind, value, expected, got))
    assert wrong == []


@pytest.mark.parametrize(
    ("value", "java17", "shortest"),
    [
        (1.0, "1.0", "1.0"),
        (100.0, "100.0", "100.0"),
        (1e7, "1.0E7", "1.0E7"),
        (9999999.0, "9999999.0", "9999999.0"),
        (0.001, "0.001", "0.001"),
        (0.0001, "1.0E-4", "1.0E-4"),
        (1e-5, "1.0E-5", "1.0E-5"),
        (1e10, "1.0E10", "1.0E10"),
        (-0.0, "-0.0", "-0.0"),
        (0.0, "0.0", "0.0"),
        (0.1, "0.1", "0.1"),
        (2.25, "2.25", "2.25"),
        (1.7976931348623157e308, "1.7976931348623157E308", "1.7976931348623157E308"),
        (5e-324, "4.9E-324", "4.9E-324"),
        (-123456789.123, "-1.23456789123E8", "-1.23456789123E8"),
        (2.098065444169686e18, "2.09806544416968602E18", "2.098065444169686E18"),
        (float("nan"), '"NaN"', '"NaN"'),
        (float("inf"), '"Infinity"', '"Infinity"'),
        (float("-inf"), '"-Infinity"', '"-Infinity"'),
    ],
)
def test_double_text(value: float, java17: str, shortest: str) -> None:
    assert java_double(value) == java17
    assert java_double_shortest(value) == shortest


@pytest.mark.parametrize(
    ("value", "java17", "shortest"),
    [
        (1.1, "1.1", "1.1"),
        (3.5, "3.5", "3.5"),
        (-123.456, "-123.456", "-123.456"),
        (3.4028234663852886e38, "3.4028235E38", "3.4028235E38"),
        (1.401298464324817e-45, "1.4E-45", "1.4E-45"),
        (1.1754943508222875e-38, "1.17549435E-38", "1.1754944E-38"),  # Float.MIN_NORMAL
        (16777216.0, "1.6777216E7", "1.6777216E7"),
        (1e10, "1.0E10", "1.0E10"),
        (3.40282e38, "3.40282E38", "3.40282E38"),
        (1e39, '"Infinity"', '"Infinity"'),  # beyond float32: (float) cast overflows
    ],
)
def test_float_text(value: float, java17: str, shortest: str) -> None:
    assert java_float(value) == java17
    assert java_float_shortest(value) == shortest


def test_float32_rounding_like_jdbc_getfloat() -> None:
    assert to_float32(-123.456) != -123.456
    assert java_float(-123.456) == "-123.456"


@pytest.mark.parametrize(
    ("text", "json"),
    [
        ("plain", '"plain"'),
        ("Zoë ☃", '"Zoë ☃"'),  # raw UTF-8, not \u escapes
        ("😀", '"\\uD83D\\uDE00"'),  # outside the BMP: escaped surrogate pair, upper-case hex
        ("𝄞", '"\\uD834\\uDD1E"'),
        ('q"b\\s/', '"q\\"b\\\\s/"'),  # slash not escaped
        ("\b\t\n\f\r", '"\\b\\t\\n\\f\\r"'),
        ("\x00\x01\x1a\x1f", '"\\u0000\\u0001\\u001A\\u001F"'),  # upper-case hex
        ("\x7f\u2028", '"\x7f\u2028"'),  # DEL and line separator stay raw
        ("", '""'),
        ("a\udcff", '"a\\uDCFF"'),  # a lone surrogate (surrogateescape bytes) is escaped, not an error
    ],
)
def test_jackson_string(text: str, json: str) -> None:
    assert jackson_string(text) == json


def test_jackson_string_of_ascii_text_matches_the_character_by_character_writer() -> None:
    """The ASCII shortcut (Python's encoder, unless it wrote a \\u escape) against `_slow`, Jackson's rules one
    character at a time: every ASCII character alone, between letters, twice, and next to a backslash and a `u`."""
    from connector.java.text import _slow

    for code in range(128):
        ch = chr(code)
        for text in (ch, f"a{ch}b", ch * 2, f"\\{ch}u", f"\\u{ch}", f"{ch}\\u0041"):
            assert jackson_string(text) == _slow(text), repr(text)
