"""Functions generated from source text, for the per-table-version compilers (serde/struct_compiler.py,
events/convert_compiler.py, events/image_writer.py).

The source a compiler builds holds only identifiers and integers, never names or text from the database; every
object the function uses (converters, writers, prefixes, null texts) comes in as a keyword-only default argument,
a local of the generated function, so reading it costs no dictionary lookup.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

__all__ = ["generated_function"]


def generated_function(name: str, params: str, body: Sequence[str], bound: Mapping[str, Any],
                       filename: str) -> Callable[..., Any]:
    """`def name(params, *, k=k for each bound name): body` compiled, with `bound`'s objects as its defaults;
    `filename` names it in tracebacks (`<struct writer>`)."""
    header = f"def {name}({params}, *, {', '.join(f'{k}={k}' for k in bound)}):" if bound else f"def {name}({params}):"
    source = "\n".join([header, *(f"    {line}" for line in body)])
    namespace: dict[str, Any] = dict(bound)
    exec(compile(source, filename, "exec"), namespace)  # noqa: S102 - source built from identifiers only
    return namespace[name]
