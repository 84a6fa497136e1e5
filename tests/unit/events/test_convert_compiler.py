"""The compiled row converter (connector/events/convert_compiler.py) computes what the per-column loop computes."""
from __future__ import annotations

import random

from connector.events.convert_compiler import compile_converter


def _loop(fns, values):
    return [v if (v is None or fn is None) else fn(v) for fn, v in zip(fns, values)]


def test_compiled_converter_matches_the_loop() -> None:
    fns = [None, str, lambda v: v * 2, None, lambda v: -v]
    convert = compile_converter(fns)
    rng = random.Random(3)
    for _ in range(500):
        row = [None if rng.random() < 0.3 else rng.randint(-9, 9) for _ in fns]
        assert convert(row) == _loop(fns, row)
        assert convert(tuple(row)) == _loop(fns, row)
    assert convert([1, 2, 3, 4, 5]) == [1, "2", 6, 4, -5]


def test_other_lengths_keep_zip_semantics() -> None:
    fns = [str, str, str]
    convert = compile_converter(fns)
    assert convert([1, 2]) == ["1", "2"]
    assert convert([1, 2, 3, 4]) == ["1", "2", "3"]


def test_empty_and_wide_tables() -> None:
    assert compile_converter([])([]) == []
    wide = [str] * 1001
    assert compile_converter(wide)(list(range(1001))) == [str(i) for i in range(1001)]
