"""topic.naming.strategy: Debezium 3.6's six MySQL strategies (connector/events/topic_names.py); the goldens
topic_naming, topic_naming-mysql, topic_naming-schema, topic_regex and topic_regex-schema show them on the wire."""
from __future__ import annotations

import pytest

from connector.config.event_settings import TopicSettings
from connector.events.topic_names import data_topic_name, key_field_augment, sanitize_topic_name
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


def _regex(strategy: str = "DefaultRegexTopicNamingStrategy", **options) -> TopicSettings:
    return TopicSettings(prefix="p", naming_strategy=S + strategy, **options)


def test_the_regex_strategies_rename_a_whole_match_of_the_sanitized_name():
    topics = _regex(regex=r"(.*)\.(?<base>shard)_\d+", replacement="$1.${base}s")
    assert data_topic_name(topics, TableId("db", "shard_7")) == "p.db.shards"
    # matches() is a full match: a name it only contains keeps its Default name
    assert data_topic_name(topics, TableId("db", "shard_7x")) == "p.db.shard_7x"
    # the regex sees the sanitized name, and its result is not sanitized again
    spaced = _regex(regex=r"p\.db\.a_b", replacement="x y")
    assert data_topic_name(spaced, TableId("db", "a b")) == "x y"
    # an empty result keeps the name (Debezium warns)
    assert data_topic_name(_regex(regex=r"p\.db\.(x?)t", replacement="$1"), TableId("db", "t")) == "p.db.t"
    schema = _regex("SchemaRegexTopicNamingStrategy", regex=r"p\.(\w+)_\d+", replacement="m.$1")
    assert data_topic_name(schema, TableId("db", "orders_1")) == "m.orders"


def test_the_key_field_names_the_physical_table_unsanitized_and_rewritten_when_its_regex_matches():
    topics = _regex(regex="x", replacement="y")
    assert key_field_augment(topics, TableId("db", "a b")) == ("__dbz__physicalTableIdentifier", "p.db.a b")
    named = _regex(regex="x", replacement="y", key_field_name="src", key_field_regex=r".*_(\d+)",
                   key_field_replacement="shard_$1")
    assert key_field_augment(named, TableId("db", "orders_02")) == ("src", "shard_02")
    assert key_field_augment(named, TableId("db", "customers")) == ("src", "p.db.customers")
    assert key_field_augment(_regex(regex="x", replacement="y", key_enforce_uniqueness=False),
                             TableId("db", "t")) is None
    assert key_field_augment(TopicSettings(prefix="p"), TableId("db", "t")) is None


@pytest.mark.parametrize("options, problem", [
    ({}, "topic.regex is required"),
    ({"regex": "a"}, "topic.replacement must be non-empty if topic.regex is set."),
    ({"regex": "(", "replacement": "b"}, "topic.regex='(' is not a valid regular expression"),
    ({"regex": "a", "replacement": "b", "key_field_regex": "c"},
     "topic.key.field.replacement must be non-empty if topic.key.field.regex is set."),
])
def test_the_regex_strategies_options_are_checked_at_start(options, problem):
    problems = _regex(**options).regex_problems()
    assert len(problems) == 1 and problem in problems[0], problems
    assert _regex(regex="a", replacement="b").regex_problems() == []
