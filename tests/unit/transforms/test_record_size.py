"""EnforceRecordSize (Debezium 3.6): the size estimate of ApproximateStructSizeCalculator and the proportional cut
of long string/bytes columns; the golden record_size shows the same on a whole workload."""
from __future__ import annotations

from decimal import Decimal

import pytest

from connector.events.kinds import ConnectRecord
from connector.serde.connect_schema import ConnectSchema, Type, struct
from connector.transforms.record_size import EnforceRecordSize, approximate_record_size

_I = ConnectSchema(Type.INT32)
_OS = ConnectSchema(Type.STRING, optional=True)
_OB = ConnectSchema(Type.BYTES, optional=True)
_DEC = ConnectSchema(Type.BYTES, optional=True, name="org.apache.kafka.connect.data.Decimal", version=1,
                     parameters=(("scale", "2"), ("connect.decimal.precision", "10")))
KEY = struct("p.db.t.Key", [("id", _I)])
ROW = struct("p.db.t.Value", [("id", _I), ("s", _OS), ("b", _OB), ("d", _DEC)], optional=True)
ENVELOPE = struct("p.db.t.Envelope", [("before", ROW), ("after", ROW), ("op", ConnectSchema(Type.STRING))])


def record(before=None, after=(1, "a", None, None), headers=()) -> ConnectRecord:
    return ConnectRecord("p.db.t", None, KEY, [1], ENVELOPE,
                         [None if before is None else list(before), None if after is None else list(after), "c"],
                         list(headers))


def test_the_estimate_counts_as_debezium() -> None:
    # partition 100 + offset 0 + 1 header 100 + timestamp 8; key 56+8+24; value 56 + 3*8 + after (56 + 4*8 + 24 +
    # 56+1 + 0 + 0) + op 56+1; topic 6
    r = record(headers=[("h", b"1")])
    assert approximate_record_size(r, 0) == 208 + 88 + (80 + 169 + 57) + 6
    assert approximate_record_size(r, 3) == approximate_record_size(r, 0) + 300
    wide = record(after=(1, "é" * 10, b"xyz", Decimal("1.00")))  # UTF-8 bytes; the unscaled 100 is one byte
    assert approximate_record_size(wide, 0) - approximate_record_size(record(), 0) == 19 + 27 + 25


def test_long_fields_are_cut_in_proportion_and_short_ones_kept() -> None:
    t = EnforceRecordSize(max_bytes=1, compression_ratio=1.0, min_field_size=3)
    out = t.apply(record(before=(1, "x" * 50, b"\x01" * 4, None), after=(1, "abc", b"\x02" * 40, None)))
    assert out.value[0] == [1, "", b"", None] and out.value[1] == [1, "abc", b"", None]
    assert t.apply(record()).value == record().value  # nothing longer than min.field.size: unchanged


def test_a_record_just_over_the_limit_loses_only_the_excess() -> None:
    base = record(after=(1, "y" * 1000, None, None))
    size = approximate_record_size(base, 6)  # a streamed row without GTID or transaction block: 6 entries
    out = EnforceRecordSize(max_bytes=size - 10, compression_ratio=1.0, min_field_size=100).apply(base)
    assert out.value[1][1] == "y" * 990
    assert EnforceRecordSize(max_bytes=size, compression_ratio=1.0, min_field_size=100).apply(base) is base
    half = EnforceRecordSize(max_bytes=(size + 1) // 2, compression_ratio=0.5, min_field_size=100).apply(base)
    assert half is base  # the ratio scales the estimate before the comparison


def test_utf16_lengths_and_decimals_over_the_limit_as_java() -> None:
    t = EnforceRecordSize(max_bytes=1, compression_ratio=1.0, min_field_size=3)
    assert t.apply(record(after=(1, "😀😀", None, None))).value[1][1] == ""  # 4 UTF-16 units > 3
    assert t.apply(record(after=(1, "😀", None, None))).value[1][1] == "😀"  # 2 units: kept
    with pytest.raises(ValueError, match="ClassCastException"):
        t.apply(record(after=(1, None, None, Decimal("1.50"))))


@pytest.mark.parametrize("options", [(0, 1.0, 1), (1, 0.0, 1), (1, 1.0, -1)])
def test_invalid_options_are_refused(options) -> None:
    with pytest.raises(ValueError, match="Must be"):
        EnforceRecordSize(*options)


def test_binlog_cdc_own_offset_keys_are_not_counted() -> None:
    from connector.offsets.parts import OWN_KEYS, debezium_entries
    from snapshot.new_tables import CAPTURED_FILTERS_KEY
    from snapshot.resume import RESUME_KEY, RESUME_TABLE

    assert OWN_KEYS == {RESUME_KEY, RESUME_TABLE, CAPTURED_FILTERS_KEY}
    assert debezium_entries({"file": "f", "pos": 4, "snapshot": "true", "ts_sec": 1, RESUME_TABLE: "t"}) == 4
