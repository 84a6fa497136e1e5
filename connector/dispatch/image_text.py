"""Per table version and TABLE_MAP: a full row image's bytes → its value JSON text and key values (issue 27).

The fused row path decoded an image into a list of values (binlog/image_compiler.py, one generated function) and
then wrote the list (events/image_writer.py, another): per image two calls, a list, a tuple and an unpack, and
the rows event's images all decoded before the first was written. Here one generated function per table version
and TABLE_MAP does both for one image: column i's bytes are read by image_compiler's block for its decoder and
written by image_writer's expression for its column (its converter, guard and writer), with nothing in between.
An ENUM member's text is not converted and written per row but looked up among texts written once per member.

It answers what the image writer answers (the image's text, key values in `key_indexes` order) or None wherever
the image writer would decline (events/image_writer.py) or a value would not decode, and the handler then decodes
that row and takes the general path, which converts and writes it (or raises the error naming its column).
Like the other compilers (serde/codegen.py), its source holds only identifiers and integers built here.
"""

from __future__ import annotations

import binascii
import datetime
from typing import Any, Callable, Mapping, Sequence

from connector.binlog.image_compiler import decode_block, readers
from connector.binlog.value_decoders import PackedDatetime, PackedDecimal, ValueDecoder
from connector.events.image_writer import ImageColumn, column_text, decline, null_declines
from connector.events.row_renderer import RENDER_FAILURES
from connector.serde.codegen import generated_function

__all__ = ["ImageText", "compile_image_text"]

# (event bytes, position of an image's null bitmap) → (value JSON text, key values, position after the image), or
# None when the row must take the general path
ImageText = Callable[[bytes, int], "tuple[str, tuple, int] | None"]

_MAX_COLUMNS = 1000  # as the other compilers
# texts a TIMESTAMP column keeps, by their bytes: a stream's TIMESTAMPs repeat (an updated_at column holds the
# second its rows changed in), and a hit costs 0.07 µs against 0.9 for decoding, converting and writing one
_KEPT_TIMESTAMPS = 64
_EPOCH_ORDINAL = datetime.date(1970, 1, 1).toordinal()


def _member_texts(column: ImageColumn, members: Sequence[Any], big_at: int) -> tuple[str | None, ...]:
    """Each ENUM member's JSON text as `column_text`'s expression writes it; None where that declines."""
    _prefix, write, _null, _message = column.field
    texts: list[str | None] = []
    for member in members:
        try:
            value = column.convert(member) if column.convert is not None else member
            ok = value is not None and not (column.is_bytes and len(value) >= big_at)
            texts.append(write(value) if ok else None)
        except RENDER_FAILURES:
            texts.append(None)
    return tuple(texts)


def _digits(fields: Sequence[tuple[int, int, int]]) -> str:
    """The source of a PackedDecimal's digit groups, as one number, from `x` (its sign already taken off)."""
    expression = ""
    for at, mask, multiplier in fields:
        group = f"(x >> {at} & {mask})"
        expression = f"({expression} * {multiplier} + {group})" if expression else group
    return expression or "0"


def _decimal_lines(i: int, layout: PackedDecimal) -> list[str]:
    """Source lines writing column i's packed DECIMAL as its unscaled value's base64 (json_values' Decimal writer
    of `decimal_unscaled_bytes`) without a Decimal in between; a fraction the scale cannot hold declines."""
    unit = 10 ** layout.scale
    return [f'x = from_bytes(data[pos:pos + {layout.size}], "big") ^ {layout.sign_bit}',
            f"pos += {layout.size}",
            f"if x >= {layout.sign_bit}:",  # the stored sign bit was 0: negative, every bit complemented
            f"    x ^= {layout.all_bits}",
            "    g = -1",
            "else:",
            "    g = 1",
            f"fr = {_digits(layout.frac_fields)}",
            f"if fr >= {unit}:",
            "    _decline()",
            f"u = g * ({_digits(layout.int_fields)} * {unit} + fr)",
            f"""t{i} = '"' + _b2a(u.to_bytes(((u if u >= 0 else ~u).bit_length() >> 3) + 1, "big", signed=True), """
            """newline=False).decode() + '"'"""]


def _datetime_lines(i: int, layout: PackedDatetime) -> list[str]:
    """Source lines setting `v{i}` to column i's DATETIME as epoch microseconds, as value_decoders' decoder and
    `_datetime_us` compute them together, without a datetime in between; a value either would refuse or treat
    otherwise (a zero or invalid date, a year below 100 for the two-digit-year adjuster) declines."""
    lines = ['p = from_bytes(data[pos:pos + 5], "big")']
    if layout.frac_size:
        lines += [f'f = from_bytes(data[pos + 5:pos + {layout.size}], "big", signed=True)',
                  f"f = {'int(f / 10)' if layout.odd else 'f'} * {layout.frac_scale}",
                  "if f < 0:",
                  "    f = 0"]
    else:
        lines.append("f = 0")
    return lines + [f"pos += {layout.size}",
                    "ym = p >> 22 & 131071",
                    "y = ym // 13",
                    "h = p >> 12 & 31",
                    "mi = p >> 6 & 63",
                    "sec = p & 63",
                    "if y < 100 or h > 23 or mi > 59 or sec > 59 or f > 999999:",
                    "    _decline()",
                    # date() refuses a zero or invalid month or day (ValueError: declined)
                    f"v{i} = ((_date(y, ym % 13, p >> 17 & 31).toordinal() - {_EPOCH_ORDINAL}) * 86400 + h * 3600"
                    " + mi * 60 + sec) * 1000000 + f"]


def compile_image_text(decoders: Sequence[ValueDecoder], columns: Sequence[ImageColumn], key_indexes: Sequence[int],
                       *, int_writer: Callable[[Any], str], bool_writer: Callable[[Any], str],
                       big_at: int, decimals: Mapping[int, PackedDecimal] | None = None,
                       datetimes: Mapping[int, tuple[PackedDatetime, Callable[[int], Any]]] | None = None,
                       timestamps: Mapping[int, int] | None = None) -> ImageText | None:
    """The generated function, or None when the TABLE_MAP's columns are not the table version's (another count) or
    the table has none or is too wide to be worth it. Columns (not of the key) read straight from their bytes:
    `decimals`, packed DECIMALs whose value goes unconverted into a Connect Decimal of the same scale; `datetimes`,
    DATETIMEs with what their converter makes of the epoch microseconds (`ColumnConverter.from_epoch_us`).
    `timestamps` (column → its size in the image): TIMESTAMPs, whose texts are kept by their bytes (at most
    `_KEPT_TIMESTAMPS` per column: a converter's text is a function of the value alone)."""
    count = len(columns)
    if not count or count != len(decoders) or count > _MAX_COLUMNS:
        return None
    bound: dict[str, Any] = {**readers(), "_decline": decline, "_int": int_writer, "_big": big_at,
                             "_failures": RENDER_FAILURES, "_b2a": binascii.b2a_base64, "_date": datetime.date}
    keys = frozenset(key_indexes)
    nbytes = (count + 7) >> 3
    nulls = "data[pos]" if nbytes == 1 else f'from_bytes(data[pos:pos + {nbytes}], "little")'
    body = ["try:", f"    nulls = {nulls}", f"    pos += {nbytes}"]
    for i, (decode, column) in enumerate(zip(decoders, columns)):
        bound[f"p{i}"] = column.field[0]
        members = getattr(decode, "enum", None)
        layout = decimals.get(i) if decimals is not None and i not in keys else None
        stamp = datetimes.get(i) if datetimes is not None and i not in keys else None
        if stamp is not None:
            # the epoch microseconds go through the converter's own form of them, then the field's writer
            epoch_column = ImageColumn(stamp[1], column.field, column.has_fallback, column.is_bytes)
            text, declines = column_text(i, epoch_column, bound, int_writer=int_writer, bool_writer=bool_writer)
            lines = [*_datetime_lines(i, stamp[0]), f"t{i} = {text}"]
        elif layout is not None:
            lines = _decimal_lines(i, layout)
            declines = null_declines(i, column, bound)
        elif members is not None and i not in keys:
            # the member's text, written when compiled; a byte beyond the members raises IndexError: declined
            bound[f"m{i}"] = _member_texts(column, members, big_at)
            lines = [f"t{i} = m{i}[data[pos]]", f"if t{i} is None:", "    _decline()", "pos += 1"]
            declines = null_declines(i, column, bound)
        else:
            text, declines = column_text(i, column, bound, int_writer=int_writer, bool_writer=bool_writer)
            # a decoder may answer None for a value that is not NULL (a zero date): the image writer's NULL then
            null_text = "_decline()" if declines else f"n{i}"
            lines = [*decode_block(i, decode, bound), f"t{i} = ({null_text} if v{i} is None else {text})"]
            size = timestamps.get(i) if timestamps is not None and i not in keys else None
            if size is not None:
                bound[f"k{i}"] = {}
                lines = [f"b = data[pos:pos + {size}]", f"t{i} = k{i}.get(b)", f"if t{i} is None:",
                         *(f"    {line}" for line in lines),
                         f"    if len(k{i}) >= {_KEPT_TIMESTAMPS}:", f"        k{i}.clear()", f"    k{i}[b] = t{i}",
                         "else:", f"    pos += {size}"]
        null = ["_decline()"] if declines else [f"t{i} = n{i}"]
        if i in keys:
            null.append(f"v{i} = None")
        body += [f"    if nulls & {1 << i}:", *(f"        {line}" for line in null), "    else:",
                 *(f"        {line}" for line in lines)]
    key = f"({''.join(f'v{i}, ' for i in key_indexes)})"
    joined = ", ".join(f"p{i}, t{i}" for i in range(count))
    body += [f"    return ''.join(({joined}, '}}')), {key}, pos", "except _failures:", "    return None"]
    return generated_function("image_text", "data, pos", body, bound, "<image text>")
