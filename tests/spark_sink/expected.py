"""What the source tables hold after ``workloads/basic.sql`` (the values of ``SELECT *``),
written out from the SQL itself, so decoded values are checked against the database's values
rather than against Debezium's encoding of them."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

UTC = dt.timezone.utc
D, T, TD = dt.date, dt.datetime, dt.timedelta


def all_types(flavour: str) -> dict[int, dict]:
    """all_types after the stream, by id. BIGINT UNSIGNED max arrives as -1: Debezium's
    default bigint.unsigned.handling.mode=long wraps it (precise mode gives Decimal(20,0))."""
    mysql = flavour.startswith("basic-mysql")
    row1 = dict(id=1, c_tinyint=-128, c_tinyint_u=255, c_smallint=-32768, c_smallint_u=65535,
                c_mediumint=-8388608, c_mediumint_u=16777215, c_int=-2147483648, c_int_u=4294967295,
                c_bigint=-9223372036854775808, c_bigint_u=-1, c_decimal=Decimal("-99999999.99"),
                c_float=-123.456, c_double=1.7976931348623157e308, c_bit=b"\x07", c_char="abcde",
                c_varchar="Zoë ☃ 😀", c_text="x" * 300, c_blob=b"\x00\xff\x10", c_binary=b"\xde\xad\xbe\xef",
                c_date=D(1000, 1, 1),
                # MySQL with sql_mode='' clamps '-838:59:59.000' the same way; both keep -838:59:59
                c_time=-TD(hours=838, minutes=59, seconds=59),
                c_datetime=T(9999, 12, 31, 23, 59, 59, 999999), c_timestamp=T(2038, 1, 19, 3, 14, 7, tzinfo=UTC),
                c_year=2155, c_enum="large", c_set=["a", "b", "c"],
                c_json='{"a": 1, "b": [true, null, "x"], "c": {"d": 1.5}}')
    row3 = dict(id=3, c_tinyint=7, c_tinyint_u=7, c_smallint=1234, c_smallint_u=1234, c_mediumint=123456,
                c_mediumint_u=123456, c_int=1234567, c_int_u=1234567, c_bigint=1234567890123,
                c_bigint_u=1234567890123, c_decimal=Decimal("-0.01"), c_float=3.5, c_double=2.25,
                c_bit=b"\x05", c_char="ab", c_varchar="changed", c_text="some text", c_blob=b"\x01\x02",
                c_binary=b"ab\x00\x00", c_date=D(2024, 2, 29), c_time=TD(hours=23, minutes=59, seconds=59, milliseconds=999),
                c_datetime=T(2000, 1, 1, 0, 0, 0, 1), c_timestamp=T(2024, 2, 29, 12, 34, 56, tzinfo=UTC),
                c_year=2024, c_enum="medium", c_set=["a", "c"],
                c_json='{"k":[1,2,3]}' if mysql else '{"k": [1, 2, 3]}')
    row4 = dict(id=4, c_tinyint=0, c_tinyint_u=0, c_smallint=0, c_smallint_u=0, c_mediumint=0, c_mediumint_u=0,
                c_int=0, c_int_u=0, c_bigint=0, c_bigint_u=0, c_decimal=Decimal("0.00"), c_float=0.0,
                c_double=0.0, c_bit=b"\x00", c_char="", c_varchar="", c_text="", c_blob=b"",
                c_binary=b"\x00\x00\x00\x00", c_date=D(1970, 1, 1), c_time=TD(0), c_datetime=T(1970, 1, 1),
                c_timestamp=T(1970, 1, 1, 0, 0, 1, tzinfo=UTC), c_year=1901, c_enum="small", c_set=[],
                c_json="{}")
    return {1: row1, 3: row3, 4: row4}


def all_types_snapshot_row3(flavour: str) -> dict:
    """Row 3 as first inserted (the snapshot image, before the streamed UPDATE)."""
    row = dict(all_types(flavour)[3])
    row.update(c_decimal=Decimal("1234.56"), c_time=TD(hours=12, minutes=34, seconds=56, milliseconds=789),
               c_datetime=T(2024, 2, 29, 12, 34, 56, 123456), c_bit=b"\x02", c_varchar="hello",
               c_set=["b"], c_json="[1, 2, 3]")
    return row


CUSTOMERS_COLUMNS = ("id", "first_name", "last_name", "email", "phone")
CUSTOMERS_FINAL = {
    1001: ("Sally", "Thomas", "sally.thomas@acme.com", "+1-555-0100"),
    1002: ("George", "Bailey", "gbailey@foobar.com", None),
    1004: ("Anne Marie", "Kretchmar", "annek@noanswer.org", None),
    2003: ("Edward", "Walker", "ed@walker.com", None),
    2004: ("Ada", "Lovelace", "ada@example.com", "+44-20-0000"),
}
# After the PK-change transaction, before the ALTER TABLE (no phone column yet).
CUSTOMERS_BEFORE_ALTER = {
    1001: ("Sally", "Thomas", "sally.thomas@acme.com"),
    1002: ("George", "Bailey", "gbailey@foobar.com"),
    1004: ("Anne Marie", "Kretchmar", "annek@noanswer.org"),
    2003: ("Edward", "Walker", "ed@walker.com"),
}
ORDERS_FINAL = {
    10001: (D(2016, 1, 16), 1001, 1, 102), 10002: (D(2016, 1, 17), 1002, 3, 105),
    10003: (D(2016, 2, 19), 1002, 3, 106), 10004: (D(2016, 2, 21), 1004, 1, 107),
    10005: (D(2024, 2, 29), 2004, 2, 107), 10006: (D(2024, 3, 1), 2004, 1, 108),
}
# Debezium's default skipped.operations=t drops the TRUNCATE, so the captured audit_log keeps
# the pre-truncate rows 2 and 3 (id 1 was reused by 'after truncate' and then deleted).
AUDIT_LOG_CAPTURED = {2: ("loaded",), 3: ("checked",)}
