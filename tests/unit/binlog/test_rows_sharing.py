"""An UPDATE's unchanged BLOB-sized value is one object in both images (connector/binlog/rows_decoder.py)."""

from __future__ import annotations

from connector.binlog.rows_decoder import SHARE_MIN, share_unchanged


def test_unchanged_big_values_are_shared_changed_and_small_ones_are_not() -> None:
    blob, text = b"\x07" * SHARE_MIN, "t" * (SHARE_MIN + 1)
    before = [1, blob, text, bytes(bytearray(b"small")), b"\x01" * SHARE_MIN, None]
    after = [2, bytes(bytearray(blob)), "".join(["t"] * (SHARE_MIN + 1)), b"small", b"\x02" * SHARE_MIN, None]
    assert after[1] is not blob and after[2] is not text
    share_unchanged(before, after, (1, 2, 3, 4, 5))
    assert after[1] is blob and after[2] is text  # equal: one object now
    assert after[3] is not before[3]  # below SHARE_MIN: left as decoded (not worth the comparison)
    assert after[4] == b"\x02" * SHARE_MIN  # changed: its own value
    assert after[0] == 2 and after[5] is None


def test_only_the_listed_columns_are_looked_at() -> None:
    blob = b"\x07" * SHARE_MIN
    before, after = [blob], [bytes(bytearray(blob))]
    share_unchanged(before, after, ())
    assert after[0] is not blob
