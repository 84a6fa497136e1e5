"""Partial JSON updates: diff vectors (MySQL's Json_diff_vector binary) applied to a rendered before document give
the document a full after image renders (keys in MySQL's binary order, numbers spelled as json_binary spells them).
tests/integration/service/test_partial_json.py checks the same against MySQL 9 itself."""
from __future__ import annotations

import pytest

from connector.binlog.json_partial import (INSERT, REMOVE, REPLACE, JsonDiffError, apply_json_diffs,
                                           read_json_diffs)

DOC = '{"n":1,"a b":true,"name":"a","tags":["x","y","z"],"nested":{"k":1.5,"s":"été"},"d":0.001}'


def _string(text: str) -> bytes:  # binary JSON string: type 0x0c, 7-bit length, UTF-8
    raw = text.encode()
    return bytes([0x0C, len(raw)]) + raw


def _int16(value: int) -> bytes:
    return bytes([0x05]) + value.to_bytes(2, "little", signed=True)


def _diff(operation: int, path: str, value: bytes | None = None) -> bytes:
    out = bytes([operation, len(path)]) + path.encode()
    return out if value is None else out + bytes([len(value)]) + value


@pytest.mark.parametrize("diffs, after", [
    ([(REPLACE, "$.n", "2")], DOC.replace('"n":1', '"n":2')),
    ([(INSERT, "$.aa", "1")], '{"d":0.001,"n":1,"aa":1,"a b":true,"name":"a","tags":["x","y","z"],'
                              '"nested":{"k":1.5,"s":"été"}}'),  # every key re-sorted: by length, then bytes
    ([(REMOVE, '$."a b"', None), (REMOVE, "$.tags[0]", None)],
     '{"n":1,"name":"a","tags":["y","z"],"nested":{"k":1.5,"s":"été"},"d":0.001}'),
    ([(INSERT, "$.tags[5]", '"w"'), (REPLACE, "$.nested.s", '"\\n"')],
     '{"n":1,"a b":true,"name":"a","tags":["x","y","z","w"],"nested":{"k":1.5,"s":"\\n"},"d":0.001}'),
    ([(REPLACE, "$", "[1]")], "[1]"),
])
def test_diffs_apply_to_the_rendered_document(diffs, after) -> None:
    assert apply_json_diffs(DOC, diffs) == after


def test_a_binary_diff_vector_decodes() -> None:
    body = _diff(REPLACE, "$.n", _int16(-7)) + _diff(INSERT, "$.x", _string("é")) + _diff(REMOVE, "$.tags[1]")
    assert read_json_diffs(body) == [(REPLACE, "$.n", "-7"), (INSERT, "$.x", '"é"'), (REMOVE, "$.tags[1]", None)]


@pytest.mark.parametrize("body", [bytes([7, 3]) + b"$.n", _diff(REPLACE, "$.n", _int16(1))[:-2]])
def test_a_corrupt_diff_vector_is_an_error(body) -> None:
    with pytest.raises(JsonDiffError):
        read_json_diffs(body)


def test_a_diff_that_does_not_fit_the_before_document_is_an_error() -> None:
    with pytest.raises(JsonDiffError, match="not in the before image"):
        apply_json_diffs(DOC, [(REPLACE, "$.missing.k", "1")])
    with pytest.raises(JsonDiffError, match="before image has no value"):
        apply_json_diffs(None, [(REPLACE, "$.n", "1")])
