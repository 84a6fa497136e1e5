"""Compile a struct schema's JSON writer into one straight-line function (per table version, once).

The generic struct writer loops over (prefix, writer, null text) tuples with `zip`, appending to a list:
per field a tuple unpack, two appends, a None test and a call. Every column of every streamed row goes
through it, so for the common case (a list or tuple with one value per field) we generate a function that
unpacks the row into locals and joins one tuple, with ints and booleans inlined. It writes exactly what
the generic writer writes; anything else (dicts, other lengths) still goes through the generic one.

As in `connector/binlog/image_compiler.py`, the generated source holds only identifiers and integers
built here, never field names or other text: prefixes, null texts and writers come in as default
arguments (locals, so reading them costs no dictionary lookup).
"""

from __future__ import annotations

from typing import Any, Callable, NoReturn, Sequence

from connector.java.text import jackson_string, py_encode
from connector.serde.codegen import generated_function

__all__ = ["compile_struct_writer", "StructField", "write_expression"]

Writer = Callable[[Any], str]
# (`,"name":` prefix, writer of a non-null value, text for null or None if null is an error, error message)
StructField = tuple[str, Writer, "str | None", str]

_MAX_FIELDS = 1000  # wider structs keep the generic loop: compile time grows and they are rare


def _raiser(message: str, error: type[Exception]) -> Callable[[], NoReturn]:
    def required() -> NoReturn:
        raise error(message)

    return required


def write_expression(i: int, value: str, write: Writer, defaults: dict[str, Any], *, int_writer: Writer,
                     bool_writer: Writer) -> str:
    """The source that writes `value` (an identifier) as field i: ints and booleans inlined (`_int` must be bound
    to `int_writer`), a string's JSON literal taken from Python's encoder where that is Jackson's (ASCII text without
    a `\\u` escape, the test `jackson_string` makes first), any other writer bound as `w{i}` in `defaults` and
    called."""
    if write is int_writer:  # `str(v)` for an int, as _int does, without the call
        return f"(str({value}) if type({value}) is int else _int({value}))"
    if write is bool_writer:
        return f'("true" if {value} else "false")'
    if write is jackson_string:
        defaults["_enc"], defaults["_jackson"] = py_encode, jackson_string
        return f'(_t if {value}.isascii() and "\\\\u" not in (_t := _enc({value})) else _jackson({value}))'
    defaults[f"w{i}"] = write
    return f"w{i}({value})"


def compile_struct_writer(fields: Sequence[StructField], generic: Writer, *, int_writer: Writer,
                          bool_writer: Writer, error: type[Exception]) -> Writer:
    """The unrolled writer; `generic` handles values that are not a list/tuple of `len(fields)` items.
    `int_writer`/`bool_writer` are the generic writers of those types, whose work is inlined."""
    count = len(fields)
    if not count or count > _MAX_FIELDS:
        return generic
    defaults: dict[str, Any] = {"generic": generic, "_int": int_writer}
    parts: list[str] = []
    for i, (prefix, write, null_text, message) in enumerate(fields):
        defaults[f"p{i}"] = prefix
        v = f"v{i}"
        text = write_expression(i, v, write, defaults, int_writer=int_writer, bool_writer=bool_writer)
        if null_text is None:
            defaults[f"r{i}"] = _raiser(message, error)
            parts.append(f"p{i}, (r{i}() if {v} is None else {text})")
        else:
            defaults[f"n{i}"] = null_text
            parts.append(f"p{i}, (n{i} if {v} is None else {text})")
    names = ", ".join(f"v{i}" for i in range(count))
    return generated_function("write", "value", [
        f"if (type(value) is not list and type(value) is not tuple) or len(value) != {count}:",
        "    return generic(value)",
        f"{names}, = value",
        f"return ''.join(({', '.join(parts)}, '}}'))",
    ], defaults, "<struct writer>")
