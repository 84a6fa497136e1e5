"""Data topic names as Debezium 3.6's topic naming strategies make them (`topic.naming.strategy`).

The strategies Debezium ships for a MySQL connector, as a table:

| class (io.debezium.schema.)          | name parts                       | a character Kafka refuses becomes |
| DefaultTopicNamingStrategy           | prefix, database, table          | `_`                               |
| DefaultUnicodeTopicNamingStrategy    | prefix, database, table          | `_uXXXX` (`_` itself too)         |
| SchemaTopicNamingStrategy            | prefix, table (MySQL: no schema) | `_`                               |
| SchemaUnicodeTopicNamingStrategy     | prefix, table                    | `_uXXXX`                          |
| DefaultRegexTopicNamingStrategy      | prefix, database, table; regex   | `_`                               |
| SchemaRegexTopicNamingStrategy       | prefix, table; regex             | `_`                               |

The regex strategies (AbstractRegexTopicNamingStrategy) rename the sanitized name when `topic.regex` matches all
of it (`Matcher.matches`, then `replaceFirst(topic.replacement)`; an empty result keeps the name, with a warning);
the new name is not sanitized again. They also give every key a string field naming the physical table
(`topic.key.*`, TableSchemaBuilder's key augment): the unsanitized name before the regex, rewritten by
`topic.key.field.regex` when that matches all of it (`physical_table_identifier`).

The parts are joined with `topic.delimiter`, and the whole name is sanitized (the prefix too): Kafka accepts
only `[a-zA-Z0-9._-]`; every other UTF-16 code unit is replaced (a character outside the BMP is two units), a
name longer than 249 is cut, `.` and `..` are replaced. Debezium logs a WARNING once per table (its names are
cached per table id, as here) and names the record schemas after the data topic (`recordSchemaPrefix`), so
TableSchemaBuilder takes its name base from `data_topic_name` too. Schema-change, transaction and heartbeat
topics are not sanitized (AbstractTopicNamingStrategy), so neither are they here (config/event_settings.py).
"""

from __future__ import annotations

import logging
import string
from dataclasses import dataclass

from connector.config.event_settings import TopicSettings
from connector.java.regex import java_regex, java_replacement
from schema_history.model import TableId

__all__ = ["STRATEGIES", "TopicNamer", "data_topic_name", "key_field_augment", "sanitize_topic_name"]

log = logging.getLogger(__name__)

_VALID = frozenset(string.ascii_letters + string.digits + "._-")
_VALID_UNICODE = _VALID - {"_"}  # AbstractUnicodeTopicNamingStrategy: `_` is escaped, so escapes stay unambiguous
_MAX_LENGTH = 249


@dataclass(frozen=True)
class Strategy:
    with_database: bool  # Default*: prefix.db.table; Schema*: prefix.table (a MySQL table id has no schema)
    unicode: bool  # UnicodeReplacementFunction instead of `_`
    regex: bool = False  # AbstractRegexTopicNamingStrategy: topic.regex/replacement, the key's table field


_PACKAGE = "io.debezium.schema."
# keyed by the lower-cased class name, as config/refusals.py compares the value
STRATEGIES: dict[str, Strategy] = {
    (_PACKAGE + "DefaultTopicNamingStrategy").lower(): Strategy(with_database=True, unicode=False),
    (_PACKAGE + "DefaultUnicodeTopicNamingStrategy").lower(): Strategy(with_database=True, unicode=True),
    (_PACKAGE + "SchemaTopicNamingStrategy").lower(): Strategy(with_database=False, unicode=False),
    (_PACKAGE + "SchemaUnicodeTopicNamingStrategy").lower(): Strategy(with_database=False, unicode=True),
    (_PACKAGE + "DefaultRegexTopicNamingStrategy").lower(): Strategy(with_database=True, unicode=False, regex=True),
    (_PACKAGE + "SchemaRegexTopicNamingStrategy").lower(): Strategy(with_database=False, unicode=False, regex=True),
}
_DEFAULT = STRATEGIES[(_PACKAGE + "DefaultTopicNamingStrategy").lower()]


def _utf16_units(text: str) -> list[int]:
    data = text.encode("utf-16-be", "surrogatepass")
    return [int.from_bytes(data[i:i + 2], "big") for i in range(0, len(data), 2)]


def _unicode_escape(unit: int) -> str:
    # Integer.toHexString, "00" prepended when it has at most two digits (so a one-digit code gives three)
    digits = format(unit, "x")
    return "_u" + ("00" + digits if len(digits) <= 2 else digits)


def sanitize_topic_name(name: str, unicode: bool = False) -> str:
    """`name` as AbstractTopicNamingStrategy.sanitizedTopicName makes it (unicode: the Unicode strategies')."""
    valid = _VALID_UNICODE if unicode else _VALID
    if all(c in valid for c in name) and len(name) <= _MAX_LENGTH and name not in (".", ".."):
        return name
    if unicode:
        out = "".join(c if c in valid else "".join(_unicode_escape(u) for u in _utf16_units(c)) for c in name)
    else:
        out = "".join(c if c in valid else "_" * (2 if ord(c) > 0xFFFF else 1) for c in name)
    dot = _unicode_escape(ord(".")) if unicode else "_"
    if len(out) > _MAX_LENGTH:
        out = out[:_MAX_LENGTH]
    elif out == ".":
        out = dot
    elif out == "..":
        out = dot + dot
    return out


def _strategy(topics: TopicSettings) -> Strategy:
    # an unknown class never gets here: config/event_settings.py refuses it at start
    return STRATEGIES.get(topics.naming_strategy.strip().lower(), _DEFAULT)


def _raw_name(topics: TopicSettings, table_id: TableId) -> str:
    parts = [topics.prefix, table_id.database, table_id.table] if _strategy(topics).with_database else [
        topics.prefix, table_id.table]
    return topics.delimiter.join(p for p in parts if p is not None)


def _java_replace_whole(pattern: str, replacement: str, text: str) -> str | None:
    """`Pattern.compile(pattern).matcher(text)`: None unless it `matches()` all of `text`, else `replaceFirst`."""
    match = java_regex(pattern).fullmatch(text)
    return None if match is None else match.expand(java_replacement(replacement))


def data_topic_name(topics: TopicSettings, table_id: TableId) -> str:
    """The data topic of `table_id` (also the base of its record schema names)."""
    strategy = _strategy(topics)
    name = sanitize_topic_name(_raw_name(topics, table_id), strategy.unicode)
    if strategy.regex and topics.regex:
        renamed = _java_replace_whole(topics.regex, topics.replacement or "", name)
        if renamed == "":
            log.warning("Routing regex returned an empty topic name, propagating original topic")
        elif renamed is not None:
            return renamed
    return name


def key_field_augment(topics: TopicSettings, table_id: TableId) -> tuple[str, str] | None:
    """(field name, value) the regex strategies append to every key of `table_id` (a required string field), or
    None. The value is the table's unsanitized Default/Schema name, rewritten by topic.key.field.regex when that
    matches all of it (AbstractRegexTopicNamingStrategy.keyValueAugment)."""
    if not _strategy(topics).regex or not topics.key_enforce_uniqueness:
        return None
    origin = _raw_name(topics, table_id)
    if topics.key_field_regex and topics.key_field_regex.strip():
        rewritten = _java_replace_whole(topics.key_field_regex, topics.key_field_replacement or "", origin)
        origin = origin if rewritten is None else rewritten
    return topics.key_field_name, origin


class TopicNamer:
    """The data topic of each table, computed once per table id."""

    def __init__(self, topics: TopicSettings) -> None:
        self._topics = topics
        self._cache: dict[TableId, str] = {}

    def data_topic(self, table_id: TableId) -> str:
        topic = self._cache.get(table_id)
        if topic is None:
            raw = _raw_name(self._topics, table_id)
            topic = data_topic_name(self._topics, table_id)
            sanitized = sanitize_topic_name(raw, _strategy(self._topics).unicode)
            if sanitized != raw:  # the regex strategies rename the sanitized name afterwards, without a warning
                log.warning("Topic '%s' name isn't a valid topic name, replacing it with '%s'.", raw, sanitized)
            self._cache[table_id] = topic
        return topic

    def tables_for(self, topic: str) -> list[TableId]:
        """The tables whose records go to `topic` (for naming them when Kafka refuses it)."""
        return [table_id for table_id, name in self._cache.items() if name == topic]
