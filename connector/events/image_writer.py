"""Per table version: a decoded binlog row image → its value JSON text, in one generated function (issue 27).

The general path converts an image (`TableSchema.convert_binlog_row`, a compiled list of Connect values) and
then writes it (the value schema's compiled struct writer): two calls, a list and an unpack per image, a call
per converted column and another per written one. For the fused row path (row_renderer.py) both are one
function per table version: column i's decoded value goes through its converter straight into its field's
writer, ints and booleans inlined, the text joined once. It writes what `write(convert(image))` writes, and
declines (raises `Declined`) wherever that pair would do something else than convert and write one value:
- a NULL where the column has a fallback (a zero date in a NOT NULL column: the general path substitutes it);
- a converter that answers None for a value (the general path would write the field's null);
- a NULL in a required field (the general path raises the error naming the column);
- a BYTES value of at least `big_at` bytes (written straight into bytes by serde/big_bytes.py).
The row then takes the general path. As in connector/serde/struct_compiler.py, the generated source holds
only identifiers and integers built here; converters, writers, prefixes and null texts come in as default
arguments (locals).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, NoReturn, Sequence

from connector.serde.codegen import generated_function
from connector.serde.struct_compiler import StructField, write_expression

__all__ = ["Declined", "ImageColumn", "ImageWriter", "column_text", "compile_image_writer", "decline",
           "null_declines"]

# a row image in table column order → its value JSON text (or Declined)
ImageWriter = Callable[[Sequence[Any]], str]

_MAX_COLUMNS = 1000  # as the other compilers: wider tables keep the general path


class Declined(LookupError):
    """The image needs the general path (one of the cases in the module docstring)."""


def decline() -> NoReturn:
    raise Declined


@dataclass(frozen=True)
class ImageColumn:
    """What the generated writer needs of one column (in table column order = value field order)."""

    convert: Callable[[Any], Any] | None  # the binlog value → its Connect value (None: as it is)
    field: StructField  # the value schema's field: prefix, writer, null text, message
    has_fallback: bool  # a NULL becomes a substitute value on the general path
    is_bytes: bool  # a BYTES field: BLOB-sized values decline


def column_text(i: int, column: ImageColumn, defaults: dict[str, Any], *, int_writer: Callable[[Any], str],
                bool_writer: Callable[[Any], str]) -> tuple[str, bool]:
    """(source of column i's JSON text for a non-NULL `v{i}`, whether a NULL declines), binding what the source
    names in `defaults` (`_decline`, `_big` and `_int` must be bound as `compile_image_writer` binds them); the
    text of a NULL is bound as `n{i}`. connector/dispatch/image_text.py writes its columns the same way."""
    write = column.field[1]
    v, c = f"v{i}", f"c{i}"
    if column.convert is not None:
        defaults[f"f{i}"] = column.convert
        value, guard = c, f"({c} := f{i}({v})) is not None"
    else:
        value, guard = v, ""
    if column.is_bytes:
        guard = f"{guard} and len({value}) < _big" if guard else f"len({value}) < _big"
    text = write_expression(i, value, write, defaults, int_writer=int_writer, bool_writer=bool_writer)
    if guard:
        text = f"({text} if {guard} else _decline())"
    return text, null_declines(i, column, defaults)


def null_declines(i: int, column: ImageColumn, defaults: dict[str, Any]) -> bool:
    """Whether a NULL in column i declines (a required field, or a fallback to substitute); otherwise the text of a
    NULL is bound as `n{i}` in `defaults`."""
    null_text = column.field[2]
    if null_text is None or column.has_fallback:
        return True
    defaults[f"n{i}"] = null_text
    return False


def compile_image_writer(columns: Sequence[ImageColumn], *, int_writer: Callable[[Any], str],
                         bool_writer: Callable[[Any], str], big_at: int) -> ImageWriter | None:
    """The generated writer, or None for a table without columns or too wide to be worth it."""
    count = len(columns)
    if not count or count > _MAX_COLUMNS:
        return None
    defaults: dict[str, Any] = {"_decline": decline, "_int": int_writer, "_big": big_at}
    parts: list[str] = []
    for i, column in enumerate(columns):
        defaults[f"p{i}"] = column.field[0]
        text, null_declines = column_text(i, column, defaults, int_writer=int_writer, bool_writer=bool_writer)
        null = "_decline()" if null_declines else f"n{i}"
        parts.append(f"p{i}, ({null} if v{i} is None else {text})")
    return generated_function("write_image", "image", [
        f"if len(image) != {count}:",
        "    _decline()",
        f"{', '.join(f'v{i}' for i in range(count))}, = image",
        f"return ''.join(({', '.join(parts)}, '}}'))",
    ], defaults, "<image writer>")
