"""The unrolled struct writer (connector/serde/struct_compiler.py) writes exactly what the generic loop writes."""
from __future__ import annotations

import random
from decimal import Decimal

import pytest

from connector.serde.connect_schema import DECIMAL_NAME, ConnectSchema, Type, struct
from connector.serde.json_values import DataError
from connector.serde.struct_compiler import compile_struct_writer


def _schema() -> ConnectSchema:
    return struct("t.Value", [
        ("id", ConnectSchema(Type.INT64)),
        ("n", ConnectSchema(Type.INT32, optional=True)),
        ("flag", ConnectSchema(Type.BOOLEAN, optional=True)),
        ("name", ConnectSchema(Type.STRING, optional=True)),
        ("dflt", ConnectSchema(Type.STRING, optional=True, default="d\u00e9f")),
        ("amount", ConnectSchema(Type.BYTES, optional=True, name=DECIMAL_NAME, parameters=(("scale", "2"),))),
        ("score", ConnectSchema(Type.FLOAT64, optional=True)),
        ("blob", ConnectSchema(Type.BYTES, optional=True)),
        ("when", ConnectSchema(Type.INT64, optional=True, name="io.debezium.time.MicroTimestamp")),
    ])


def _generic(schema: ConnectSchema):
    """The writer as it was before compilation: the generic loop (the compiler's fallback)."""
    captured = {}

    def grab(fields, generic, **_: object):
        captured["generic"] = generic
        return generic

    import connector.serde.json_values as jv
    original = jv.compile_struct_writer
    jv.compile_struct_writer = grab
    try:
        jv.value_writer(schema)
    finally:
        jv.compile_struct_writer = original
    return captured["generic"]


def _row(rng: random.Random) -> list:
    def maybe(v):
        return None if rng.random() < 0.3 else v
    return [rng.randint(-2**63, 2**63 - 1), maybe(rng.randint(-5, 5)), maybe(rng.random() < 0.5),
            maybe(rng.choice(["", "x\"y", "\u0001\U0001F600", "plain"])), maybe("v"),
            maybe(Decimal(rng.randint(-10**6, 10**6)) / 100), maybe(rng.choice([0.0, -0.0, 1e300, 0.1, float("nan")])),
            maybe(bytes(rng.randrange(256) for _ in range(rng.randrange(5)))), maybe(rng.randint(0, 10**15))]


def test_compiled_writer_matches_generic_loop() -> None:
    schema = _schema()
    compiled, generic = schema.writer, _generic(schema)
    assert compiled is not generic
    rng = random.Random(7)
    for _ in range(2000):
        row = _row(rng)
        assert compiled(row) == generic(row)
        assert compiled(tuple(row)) == generic(row)


def test_bool_subclass_and_non_int_values_take_the_generic_writers() -> None:
    schema = _schema()
    row = [True, 3.0, 1, None, None, None, None, None, None]  # bool as INT64, float as INT32, int as BOOLEAN
    assert schema.writer(row) == _generic(schema)(row)
    assert schema.writer(row).startswith('{"id":1,"n":3,"flag":true,')


def test_dicts_and_other_lengths_fall_back() -> None:
    schema = _schema()
    as_dict = {"id": 1, "name": "a"}
    assert schema.writer(as_dict) == _generic(schema)(as_dict)
    short = [1, 2]  # the generic loop's zip semantics, unchanged
    assert schema.writer(short) == _generic(schema)(short)


def test_null_for_a_required_field_is_a_data_error() -> None:
    with pytest.raises(DataError, match="required field of type int64"):
        _schema().writer([None] * 9)


def test_field_names_never_reach_the_generated_source() -> None:
    s = struct("t.V", [("a'); import os; ('", ConnectSchema(Type.INT32)), ("\"b\"", ConnectSchema(Type.STRING))])
    assert s.writer([1, "x"]) == '{"a\'); import os; (\'":1,"\\"b\\"":"x"}'


def test_wide_structs_keep_the_generic_loop() -> None:
    def gen(v):
        return "generic"
    fields = [("{", str, None, "m")] * 1001
    assert compile_struct_writer(fields, gen, int_writer=str, bool_writer=str, error=ValueError) is gen
