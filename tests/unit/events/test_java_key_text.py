"""The text Debezium prints for its incremental-snapshot key objects (notifications' maximum_key and
last_processed_key, the ChunkFrom/ChunkTo/TableFrom/TableTo metrics): `String.valueOf` of LocalDate, Timestamp,
Duration, BigDecimal, byte[], Double, as the JDK writes them, and `Arrays.toString`."""
from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal

import pytest

from connector.java.key_text import arrays_to_string, java_value_text
from connector.notifications.model import Notification
from connector.notifications.service import IncrementalNotifications, Notifier
from schema_history.model import TableId
from snapshot.incremental.context import Collection, IncrementalContext


@pytest.mark.parametrize("value, text", [
    # DATE: java.time.LocalDate
    (dt.date(2024, 1, 2), "2024-01-02"),
    (dt.date(1, 1, 1), "0001-01-01"),
    # DATETIME: java.sql.Timestamp (".0" when no fraction, trailing zeros dropped)
    (dt.datetime(2024, 1, 2, 3, 4, 5), "2024-01-02 03:04:05.0"),
    (dt.datetime(2024, 1, 2, 3, 4, 5, 120000), "2024-01-02 03:04:05.12"),
    (dt.datetime(2024, 1, 2, 0, 0, 0, 1), "2024-01-02 00:00:00.000001"),
    # TIME: java.time.Duration
    (dt.timedelta(0), "PT0S"),
    (dt.timedelta(hours=10, minutes=15, seconds=30), "PT10H15M30S"),
    (dt.timedelta(hours=1), "PT1H"),
    (dt.timedelta(seconds=1, microseconds=500000), "PT1.5S"),
    (dt.timedelta(hours=838, minutes=59, seconds=59), "PT838H59M59S"),
    (-dt.timedelta(hours=838, minutes=59, seconds=59), "PT-838H-59M-59S"),
    (-dt.timedelta(microseconds=500000), "PT-0.5S"),
    (-dt.timedelta(hours=1, microseconds=1000), "PT-1H-0.001S"),
    # DECIMAL: BigDecimal.toString (scientific once the adjusted exponent is below -6)
    (Decimal("12.50"), "12.50"),
    (Decimal("-0.5"), "-0.5"),
    (Decimal("100"), "100"),
    (Decimal("0.000001"), "0.000001"),
    (Decimal("0.0000001"), "1E-7"),
    (Decimal("0.0000000"), "0E-7"),
    (Decimal("-0.00000012"), "-1.2E-7"),
    # others
    (1.0, "1.0"),
    (1e10, "1.0E10"),
    (True, "true"),
    (12, "12"),
    ("a b", "a b"),
])
def test_key_object_text(value, text):
    assert java_value_text(value) == text


def test_binary_keys_print_as_a_java_byte_array_reference():
    """Java prints byte[] as "[B@" and its identity hash, new in every JVM: the same shape, stable here."""
    text = java_value_text(b"\x00\x01")
    assert re.fullmatch(r"\[B@[0-9a-f]{1,8}", text) and text == java_value_text(bytearray(b"\x00\x01"))
    assert text != java_value_text(b"\x00\x02")


def test_arrays_to_string_and_the_notification_join():
    key = (Decimal("0.0000001"), dt.date(2024, 1, 2), None)
    assert arrays_to_string(key) == "[1E-7, 2024-01-02, null]"
    assert arrays_to_string(None) is None

    class Capture:  # a notification channel that keeps what it is sent
        def __init__(self) -> None:
            self.sent: list[Notification] = []

        def send(self, notification: Notification) -> None:
            self.sent.append(notification)

    context = IncrementalContext()
    context.add("sig", [Collection(TableId.parse_identifier("db.t"))])
    context.maximum_key = key
    context.chunk_end = (Decimal("12.50"), dt.datetime(2024, 1, 2, 3, 4, 5), None)
    channel = Capture()
    IncrementalNotifications(Notifier([channel], "c")).in_progress(context)
    sent = channel.sent[0].additional_data
    assert sent["maximum_key"] == "1E-7,2024-01-02,<null>"
    assert sent["last_processed_key"] == "12.50,2024-01-02 03:04:05.0,<null>"
