"""Text exactly as the JVM writes it: `Double.toString`, `Float.toString` and Jackson string escaping.

JsonConverter hands numbers and strings to Jackson's `UTF8JsonGenerator`, so byte equality needs:

* doubles/floats in Java's `toString` layout: plain decimal for 1e-3 <= |x| < 1e7 (`100.0`, `0.001`),
  otherwise "computerized scientific notation" (`1.0E7`, `1.0E-5`, `1.7976931348623157E308`), always
  with at least one digit after the point; `NaN`/`Infinity` are written as JSON strings because
  Jackson's `WRITE_NAN_AS_STRINGS` is on by default;
* the digits of Java 17's `FloatingDecimal` (Debezium 3.6's runtime, and the reference's), which are
  often longer than the shortest round-trip digits Java 19+ prints (JDK-4511638): `java_double` /
  `java_float` give the former (see java_legacy_float), `*_shortest` the latter;
* strings as raw UTF-8 with `"`/`\\` and control characters escaped (`\\b \\t \\n \\f \\r` short, others
  `\\u00XX` with upper-case hex), and characters outside the BMP written as an escaped UTF-16
  surrogate pair (`\\uD83D\\uDE00`), because the generator does not combine surrogates by default.
"""

from __future__ import annotations

import functools
import json.encoder
import math
import re
import struct
from typing import Callable

from connector.java.legacy_float import layout, legacy_double_digits, legacy_float_digits

__all__ = [
    "java_double",
    "java_float",
    "java_double_shortest",
    "java_float_shortest",
    "to_float32",
    "jackson_string",
    "py_encode",
]


def _java_layout(digits: str, exponent: int, negative: bool) -> str:
    """Lay out `0.d1d2d3... × 10^exponent` (digits without leading/trailing zeros) the Java way."""
    sign = "-" if negative else ""
    # decimal exponent of the first digit: value = d1.d2d3... × 10^sci
    sci = exponent - 1
    if -3 <= sci < 7:
        if sci >= 0:
            int_part = digits[: sci + 1].ljust(sci + 1, "0")
            frac = digits[sci + 1 :] or "0"
            return f"{sign}{int_part}.{frac}"
        return f"{sign}0.{'0' * (-sci - 1)}{digits}"
    frac = digits[1:] or "0"
    return f"{sign}{digits[0]}.{frac}E{sci}"


def _split_repr(text: str) -> tuple[str, int]:
    """Python's shortest repr (`'1.5e-07'`, `'123.25'`) → (significant digits, exponent of 0.d form)."""
    mantissa, _, exp = text.partition("e")
    exponent = int(exp) if exp else 0
    int_part, _, frac = mantissa.partition(".")
    digits = (int_part + frac).lstrip("0")
    # position of the decimal point relative to the start of int_part
    point = len(int_part) + exponent
    leading_zeros = len(int_part + frac) - len((int_part + frac).lstrip("0"))
    digits = digits.rstrip("0") or "0"
    return digits, point - leading_zeros


def java_double_shortest(value: float) -> str:
    """`Double.toString(value)` of Java 19+ (shortest digits), as written inside JSON."""
    if value != value or value in (math.inf, -math.inf):
        return _NON_FINITE[repr(value)]
    if value == 0.0:
        return "-0.0" if math.copysign(1.0, value) < 0 else "0.0"
    negative = value < 0
    magnitude = -value if negative else value
    digits, exponent = _two_digit_rule(_split_repr(repr(magnitude)), magnitude)
    return _java_layout(digits, exponent, negative)


_F32 = struct.Struct("<f")


def to_float32(value: float) -> float:
    """Round a Python float to the nearest float32 (what JDBC `getFloat` does with a FLOAT column)."""
    try:
        return _F32.unpack(_F32.pack(value))[0]
    except OverflowError:  # beyond float32 range: Java's (float) cast gives an infinity
        return math.copysign(math.inf, value)


def _shortest_float32_digits(value: float) -> tuple[str, int]:
    # float32 needs at most 9 significant digits; take the first length whose nearest decimal
    # reads back to the same float32 (same criterion as Float.toString since Java 19).
    pack = _F32.pack
    target = pack(value)
    for precision in range(1, 10):
        text = f"{value:.{precision - 1}e}"
        try:
            if pack(float(text)) == target:
                return _two_digit_rule(_split_repr(text), value)
        except OverflowError:  # a candidate above Float.MAX_VALUE
            continue
    return _split_repr(f"{value:.8e}")


def _two_digit_rule(found: tuple[str, int], value: float) -> tuple[str, int]:
    # Java prints at least d.d, and when one digit would do it picks the 2-digit decimal closest to
    # the value (Double.toString javadoc, "length 1 or 2"): 4.9E-324, not 5.0E-324.
    if len(found[0]) == 1:
        return _split_repr(f"{value:.1e}")
    return found


def java_float_shortest(value: float) -> str:
    """`Float.toString(value)` of Java 19+ for a value that is (or is rounded to) a float32."""
    if value != value or value in (math.inf, -math.inf):
        return _NON_FINITE[repr(value)]
    value = to_float32(value)
    if value in (math.inf, -math.inf):
        return _NON_FINITE[repr(value)]
    if value == 0.0:
        return "-0.0" if math.copysign(1.0, value) < 0 else "0.0"
    negative = value < 0
    digits, exponent = _shortest_float32_digits(-value if negative else value)
    return _java_layout(digits, exponent, negative)


_NON_FINITE = {"nan": '"NaN"', "inf": '"Infinity"', "-inf": '"-Infinity"'}

# Python's C encoder (ensure_ascii=False) already matches Jackson except for these characters.
# (lone surrogates, e.g. from surrogateescape-decoded bytes, are escaped one by one like Jackson does)
_needs_fixup = re.compile("[\x00-\x07\x0b\x0e-\x1f\ud800-\udfff\U00010000-\U0010ffff]").search
# Python's JSON string literal: Jackson's too for ASCII text without a \u escape (jackson_string's first test,
# which serde/struct_compiler.py inlines)
py_encode: Callable[[str], str] = json.encoder.encode_basestring  # type: ignore[attr-defined]


def _escape_char(ch: str) -> str:
    code = ord(ch)
    if code > 0xFFFF:
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04X}\\u{0xDC00 + (code & 0x3FF):04X}"
    return f"\\u{code:04X}"


def jackson_string(text: str) -> str:
    """The JSON string literal (with quotes) Jackson writes for `text`."""
    encoded = py_encode(text)
    if text.isascii():
        # the usual case: of ASCII text only control characters without a short escape differ, and Python writes
        # each of them as \u00xx (0.04 µs to rule out, the regular expression 0.17 µs)
        if "\\u" not in encoded:
            return encoded
    if _needs_fixup(text) is None:
        return encoded
    # rare: control characters without a short escape, or characters outside the BMP
    return _slow(text)


def _slow(text: str) -> str:
    out = ['"']
    for ch in text:
        code = ord(ch)
        if code < 0x20 or code > 0xFFFF or 0xD800 <= code <= 0xDFFF:
            short = _SHORT.get(ch)
            out.append(short if short is not None else _escape_char(ch))
        elif ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


_SHORT = {"\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}


def java_double(value: float) -> str:
    """`Double.toString(value)` as Java 17 (Debezium 3.6's runtime) writes it, inside JSON."""
    if 1e-3 <= value < 1e7 or -1e7 < value <= -1e-3:  # first: most values are here (NaN is in neither range)
        # Java's plain-notation range. There Java 17's digits equal the shortest round-trip digits whenever
        # those have at most 15 significant digits (checked against the legacy algorithm on ~200k values,
        # tests/unit/events/test_java_double_fast_path.py), and Python's repr prints the same text. A repr of at
        # most 16 characters has at most 15 digits (it holds a point).
        text = repr(value)
        if len(text) <= 16 or len(text.replace("-", "").replace(".", "").strip("0")) <= 15:
            return text
        return _legacy_double(value)
    if value != value or value in (math.inf, -math.inf):
        return _NON_FINITE[repr(value)]
    if value == 0.0:  # before the cache: 0.0 == -0.0 would share an entry
        return "-0.0" if math.copysign(1.0, value) < 0 else "0.0"
    return _legacy_double(value)


def java_float(value: float) -> str:
    """`Float.toString(value)` as Java 17 writes it, for a value that is (or is rounded to) a float32."""
    if value != value:
        return _NON_FINITE["nan"]
    value = to_float32(value)
    if value in (math.inf, -math.inf):
        return _NON_FINITE[repr(value)]
    if value == 0.0:
        return "-0.0" if math.copysign(1.0, value) < 0 else "0.0"
    return _legacy_float(value)


# Pure functions of the value, memoised: column values repeat a lot (prices, rates, flags) and the
# legacy digit generation costs a few µs in Python.
@functools.lru_cache(maxsize=16384)
def _legacy_double(value: float) -> str:
    digits, exponent = legacy_double_digits(value)
    return layout(digits, exponent, value < 0)


@functools.lru_cache(maxsize=16384)
def _legacy_float(value: float) -> str:
    digits, exponent = legacy_float_digits(value)
    return layout(digits, exponent, value < 0)
