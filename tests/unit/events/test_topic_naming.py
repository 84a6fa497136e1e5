"""topic.naming.strategy: Debezium 3.6's four MySQL strategies (connector/events/topic_names.py); the goldens
topic_naming, topic_naming-mysql and topic_naming-schema show them on the wire."""
from __future__ import annotations

import pytest

from connector.config.event_settings import TopicSettings
from connector.events.topic_names import data_topic_name, sanitize_topic_name
from schema_history.model import TableId

S = "io.debezium.schema."


def test_unicode_escapes_every_refused_utf16_unit_and_the_underscore():
    assert sanitize_topic_name("p.db.order_items", unicode=True) == "p.db.order_u005fitems"
    assert sanitize_topic_name("p.db.a$b€", unicode=True) == "p.db.a_u0024b_u20ac"
    # Integer.toHexString with "00" before one or two digits: a one-digit code keeps three
    assert sanitize_topic_name("p.db.a\tb", unicode=True) == "p.db.a_u009b"
    assert sanitize_topic_name("p.db.\U0001F600", unicode=True) == "p.db._ud83d_ude00"
    assert sanitize_topic_name("p.db.ok-1", unicode=True) == "p.db.ok-1"


def test_names_that_kafka_refuses_whole():
    assert sanitize_topic_name(".") == "_" and sanitize_topic_name("..") == "__"
    assert sanitize_topic_name("..", unicode=True) == "_u002e_u002e"
    assert sanitize_topic_name("x" * 300) == "x" * 249


@pytest.mark.parametrize("strategy, delimiter, expected", [
    ("DefaultTopicNamingStrategy", ".", "p_1.db.t__"),
    ("DefaultUnicodeTopicNamingStrategy", ".", "p_u005f1.db.t_u005f_u00fc"),
    ("SchemaTopicNamingStrategy", "_", "p_1_t__"),
    ("SchemaUnicodeTopicNamingStrategy", "-", "p_u005f1-t_u005f_u00fc"),
])
def test_each_strategy_names_the_data_topic(strategy, delimiter, expected):
    topics = TopicSettings(prefix="p_1", delimiter=delimiter, naming_strategy=S + strategy)
    name = data_topic_name(topics, TableId("db", "t_ü"))
    assert name == expected
