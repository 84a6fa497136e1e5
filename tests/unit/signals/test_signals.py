"""Signals → actions, filters, and the incremental snapshot's offset keys (no servers)."""

from __future__ import annotations

import pytest

from connector.java.object_array import INTEGER, LONG, STRING, deserialize_keys, serialize_keys
from connector.signals.actions import (ExecuteSnapshot, LogMessage, SetBinlogPosition, SignalRecord, SignalRejected,
                                       StopSnapshot, parse_action)
from connector.signals.filters import FilterRejected, checked_filter
from schema_history.model import TableId
from snapshot.incremental.context import Collection, IncrementalContext

# Debezium 3.6.3's bytes (golden signals_incremental: maximum key [6] of inventory.customers)
MAX_KEY_6 = ("aced0005757200135b4c6a6176612e6c616e672e4f626a6563743b90ce589f1073296c020000787000000001737200116a617661"
             "2e6c616e672e496e746567657212e2a0a4f781873802000149000576616c7565787200106a6176612e6c616e672e4e756d6265"
             "7286ac951d0b94e08b020000787000000006")
# ... and of inventory.orders with `qty > 1`: ["B-7", 2]
MAX_KEY_B7_2 = ("aced0005757200135b4c6a6176612e6c616e672e4f626a6563743b90ce589f1073296c020000787000000002740003422d37"
                "737200116a6176612e6c616e672e496e746567657212e2a0a4f781873802000149000576616c7565787200106a6176612e6c"
                "616e672e4e756d62657286ac951d0b94e08b020000787000000002")


@pytest.mark.parametrize("values, types, hex_text", [
    ((6,), (INTEGER,), MAX_KEY_6),
    (("B-7", 2), (STRING, INTEGER), MAX_KEY_B7_2),
    (None, (), "aced000570"),
])
def test_keys_serialize_as_java_does(values, types, hex_text):
    assert serialize_keys(values, types) == hex_text
    assert deserialize_keys(hex_text) == values


def test_repeated_boxes_are_references_and_read_back():
    text = serialize_keys((1, 2**40, 3), (INTEGER, LONG, INTEGER))
    assert deserialize_keys(text) == (1, 2**40, 3)
    assert text.count("6a6176612e6c616e672e496e7465676572") == 1  # java.lang.Integer described once


@pytest.mark.parametrize("data, reason", [
    ('{"data-collections": [inventory.orders]}', "not JSON"),
    ('[1]', "not a JSON object"),
    ('{"type": "incremental"}', "no data-collections"),
    ('{"data-collections": ["a.b"], "type": "sideways"}', "snapshot type"),
    ('{"data-collections": ["a.(b"]}', "not a regular expression"),
    ('{"data-collections": ["a.b"], "additional-conditions": [{"filter": "x > 1"}]}', "data-collection and a filter"),
])
def test_malformed_execute_snapshot_is_rejected_with_its_id(data, reason):
    with pytest.raises(SignalRejected, match=reason) as info:
        parse_action(SignalRecord("sig-9", "execute-snapshot", data))
    assert info.value.signal_id == "sig-9" and "sig-9" in str(info.value)


def test_unknown_signal_type_is_rejected():
    with pytest.raises(SignalRejected, match="unknown signal type 'explode'"):
        parse_action(SignalRecord("s", "explode", "{}"))


def test_actions_parse():
    action = parse_action(SignalRecord("s1", "execute-snapshot", '{"data-collections": ["db.t.*"], "additional-'
                                       'conditions": [{"data-collection": "db.t1", "filter": "a > 1"}], '
                                       '"surrogate-key": "k"}'))
    assert isinstance(action, ExecuteSnapshot) and action.kind == "incremental"
    assert action.data_collections == ("db.t.*",) and action.surrogate_key == "k"
    assert action.additional_conditions[0].filter == "a > 1"
    assert parse_action(SignalRecord("s2", "stop-snapshot", '{"type": "INCREMENTAL"}')) == StopSnapshot(
        "s2", "incremental", ())
    assert parse_action(SignalRecord("s3", "log", '{"message": "hi"}')) == LogMessage("s3", "hi")


@pytest.mark.parametrize("text, rendered", [
    ("qty > 1", "qty > 1"),
    ("order_no LIKE 'A%' AND line IN (1, 2)", "order_no LIKE 'A%' AND line IN (1, 2)"),
    ("qty BETWEEN 1 AND 3 OR order_no IS NULL", "qty BETWEEN 1 AND 3 OR order_no IS NULL"),
])
def test_filters_accepted_are_rendered_by_sqlglot(text, rendered):
    assert checked_filter(text, ["qty", "order_no", "line"]).sql(dialect="mysql") == rendered


@pytest.mark.parametrize("text, reason", [
    ("qty > 1; DROP TABLE customers", "not several statements"),
    ("qty > (SELECT max(qty) FROM other)", "Subquery"),
    ("qty > 1 -- and more", "comments"),
    ("qty > 1 /* x */", "comments"),
    ("DROP TABLE customers", "not a boolean expression"),
    ("qty > 1 UNION SELECT 1", "not a boolean expression"),
    ("qty", "not a boolean expression"),
    ("nope > 1", "no column 'nope'"),
    ("o.qty > 1", "names another table"),
    ("qty >", "not valid SQL"),
])
def test_filters_refused(text, reason):
    with pytest.raises(FilterRejected, match=reason):
        checked_filter(text, ["qty", "order_no", "line"])


def test_context_offset_keys_round_trip_as_debezium_stores_them():
    context = IncrementalContext()
    context.add("sig-1", [Collection(TableId("inventory", "customers"))])
    context.key_types = (INTEGER,)
    context.maximum_key = (6,)
    context.last_sent = (2,)
    slot = context.slot()
    assert slot is not None
    values = dict(slot.values)
    assert values["incremental_snapshot_maximum_key"] == MAX_KEY_6
    assert values["incremental_snapshot_collections"] == (
        '[{"incremental_snapshot_collections_id":"inventory.customers",'
        '"incremental_snapshot_collections_additional_condition":null,'
        '"incremental_snapshot_collections_surrogate_key":null}]')
    loaded = IncrementalContext.load(values)
    # As Debezium's init: the last key sent is where the next chunk starts. Unlike Debezium (null) it stays the last
    # key sent until the next chunk is emitted, so a second kill before then does not restart the table.
    assert loaded.chunk_end == (2,) and loaded.maximum_key == (6,) and loaded.last_sent == (2,)
    assert dict(loaded.slot().values)["incremental_snapshot_primary_key"] == values["incremental_snapshot_primary_key"]
    assert loaded.correlation_id == "sig-1" and loaded.current == Collection(TableId("inventory", "customers"))
    context.next_collection()
    assert context.slot() is None and context.correlation_id is None


@pytest.mark.parametrize("data, reason", [
    ('{"binlog_filename": "mysql-bin.000003", "binlog_position": 4, "gtid_set": "x"}', "Cannot specify both"),
    ('{"binlog_position": 4}', "Binlog filename must be specified"),
    ('{"binlog_filename": "mysql-bin.3", "binlog_position": 4}', "Invalid binlog filename format"),
    ('{"binlog_filename": "mysql-bin.000003", "binlog_position": -1}', "must be non-negative"),
    ('{"gtid_set": "not-a-set"}', "Invalid GTID set format"),
    ('{"other": 1}', "Must specify either"),
])
def test_malformed_set_binlog_position_is_rejected_with_debeziums_reason(data, reason):
    with pytest.raises(SignalRejected, match=reason):
        parse_action(SignalRecord("p", "set-binlog-position", data))


def test_set_binlog_position_parses():
    uuid = "3e11fa47-71ca-11e1-9e33-c80aa9429562"
    data = '{"binlog_filename": "mysql-bin.000003", "binlog_position": 1234}'
    assert parse_action(SignalRecord("p", "set-binlog-position", data)) == SetBinlogPosition(
        "p", "mysql-bin.000003", 1234, None)
    assert parse_action(SignalRecord("p", "set-binlog-position", f'{{"gtid_set": "{uuid}:1-100"}}')).gtids == \
        f"{uuid}:1-100"
