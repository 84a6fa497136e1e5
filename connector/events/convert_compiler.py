"""Compile a table version's per-column converters into one straight-line function.

`TableSchema.convert_binlog_row` ran `[v if v is None or fn is None else fn(v) for fn, v in zip(fns, row)]`
for every row image: a zip tuple, two tests and a call per column. The generated function unpacks the
row into locals, passes through columns without a converter and calls the others, which is what the
comprehension computes. The source holds only identifiers and integers; converters come in as default
arguments (as in `connector/serde/struct_compiler.py`).
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from connector.serde.codegen import generated_function

__all__ = ["compile_converter", "RowConverter"]

RowConverter = Callable[[Sequence[Any]], list]

_MAX_COLUMNS = 1000  # wider tables keep the comprehension


def _loop(fns: Sequence[Callable[[Any], Any] | None]) -> RowConverter:
    def convert(values: Sequence[Any]) -> list:
        return [v if (v is None or fn is None) else fn(v) for fn, v in zip(fns, values)]

    return convert


def compile_converter(fns: Sequence[Callable[[Any], Any] | None]) -> RowConverter:
    """The row converter: `fns[i]` converts column i's non-null value (None: the value as it is).
    Rows of another length than `fns` get the comprehension's zip semantics."""
    loop = _loop(tuple(fns))
    count = len(fns)
    if not count or count > _MAX_COLUMNS:
        return loop
    defaults: dict[str, Any] = {"loop": loop}
    items = []
    for i, fn in enumerate(fns):
        if fn is None:
            items.append(f"v{i}")
        else:
            defaults[f"f{i}"] = fn
            items.append(f"(None if v{i} is None else f{i}(v{i}))")
    return generated_function("convert", "values", [
        f"if len(values) != {count}:",
        "    return loop(values)",
        f"{', '.join(f'v{i}' for i in range(count))}, = values",
        f"return [{', '.join(items)}]",
    ], defaults, "<row converter>")
