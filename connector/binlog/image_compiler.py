"""Compile a table version's column decoders into one straight-line function for full row images.

A loop over per-column functions costs a call, a tuple and a bit test per value. For the common case
(binlog_row_image=FULL: every column present) we generate, once per table version, a function with
one block per column: fixed-width numbers and length-prefixed text are inlined as `unpack_from` /
slice-and-decode, everything else calls its `value_decoders` function. This is the technique of
`collections.namedtuple` / `dataclasses`: the generated source contains only identifiers and integers
built here, never text from the binlog; per-column objects are passed in through the namespace.
"""

from __future__ import annotations

import struct
from typing import Any, Callable, Sequence

from connector.binlog.value_decoders import ValueDecoder

__all__ = ["FullImage", "compile_full_image", "decode_block", "readers"]

# (data, pos at the image's null bitmap) → (values in column order, position after the image)
FullImage = Callable[[bytes, int], tuple[list, int]]

_MAX_COLUMNS = 1000  # beyond this the generic loop is used; such tables are rare and compile time grows
_LENGTH_READERS = {1: "data[pos]", 2: "u16(data, pos)[0]", 3: "u24(data[pos:pos + 3])", 4: "u32(data, pos)[0]"}


def decode_block(i: int, decode: ValueDecoder, namespace: dict[str, Any]) -> list[str]:
    """Source lines (unindented) reading column i's non-NULL value into v{i} and advancing pos, binding the objects
    they name in `namespace` (`r`-prefixed; it must also hold `readers()`). connector/dispatch/image_text.py reads
    columns the same way."""
    fixed = getattr(decode, "fixed", None)
    text = getattr(decode, "text", None)
    enum = getattr(decode, "enum", None)
    if fixed is not None:
        namespace[f"rf{i}"], size = fixed
        return [f"v{i} = rf{i}(data, pos)[0]", f"pos += {size}"]
    if text is not None:
        length_size, namespace[f"re{i}"], namespace[f"rx{i}"] = text
        # encoding None: raw bytes, and pmr's '' for an empty value (value_decoders._text_decoder)
        value = f".decode(re{i}, rx{i})" if text[1] is not None else ' or ""'
        return [f"end = pos + {length_size} + {_LENGTH_READERS[length_size]}",
                f"v{i} = data[pos + {length_size}:end]{value}", "pos = end"]
    if enum is not None:
        namespace[f"rn{i}"] = enum
        return [f"v{i} = rn{i}[data[pos]]", "pos += 1"]
    namespace[f"rd{i}"] = decode
    return [f"v{i}, pos = rd{i}(data, pos)"]


def readers() -> dict[str, Any]:
    """The helpers `decode_block`'s lines call, by the names they use."""
    return {"u16": struct.Struct("<H").unpack_from, "u32": struct.Struct("<I").unpack_from,
            "u24": lambda b: int.from_bytes(b, "little"), "from_bytes": int.from_bytes}


def compile_full_image(decoders: Sequence[ValueDecoder], name: str = "table") -> FullImage | None:
    """The generated reader, or None when the table is too wide to be worth it."""
    count = len(decoders)
    if not count or count > _MAX_COLUMNS:
        return None
    namespace = readers()
    nbytes = (count + 7) >> 3
    nulls = "data[pos]" if nbytes == 1 else f'from_bytes(data[pos:pos + {nbytes}], "little")'
    lines = ["def image(data, pos):", f"    nulls = {nulls}", f"    pos += {nbytes}"]
    for i, decode in enumerate(decoders):
        lines += [f"    if nulls & {1 << i}:", f"        v{i} = None", "    else:"]
        lines += [f"        {line}" for line in decode_block(i, decode, namespace)]
    lines.append("    return [" + ", ".join(f"v{i}" for i in range(count)) + "], pos")
    code = compile("\n".join(lines), f"<row image of {name}>", "exec")
    exec(code, namespace)  # noqa: S102 - source built above from integers and identifiers only
    return namespace["image"]
