"""Data topic names as Debezium 3.6's topic naming strategies make them (`topic.naming.strategy`).

The strategies Debezium ships for a MySQL connector, as a table (the regex strategies are refused by name in
config/refusals.py):

| class (io.debezium.schema.)          | name parts                       | a character Kafka refuses becomes |
| DefaultTopicNamingStrategy           | prefix, database, table          | `_`                               |
| DefaultUnicodeTopicNamingStrategy    | prefix, database, table          | `_uXXXX` (`_` itself too)         |
| SchemaTopicNamingStrategy            | prefix, table (MySQL: no schema) | `_`                               |
| SchemaUnicodeTopicNamingStrategy     | prefix, table                    | `_uXXXX`                          |

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
from schema_history.model import TableId

__all__ = ["STRATEGIES", "TopicNamer", "data_topic_name", "sanitize_topic_name"]

log = logging.getLogger(__name__)

_VALID = frozenset(string.ascii_letters + string.digits + "._-")
_VALID_UNICODE = _VALID - {"_"}  # AbstractUnicodeTopicNamingStrategy: `_` is escaped, so escapes stay unambiguous
_MAX_LENGTH = 249


@dataclass(frozen=True)
class Strategy:
    with_database: bool  # Default*: prefix.db.table; Schema*: prefix.table (a MySQL table id has no schema)
    unicode: bool  # UnicodeReplacementFunction instead of `_`


_PACKAGE = "io.debezium.schema."
# keyed by the lower-cased class name, as config/refusals.py compares the value
STRATEGIES: dict[str, Strategy] = {
    (_PACKAGE + "DefaultTopicNamingStrategy").lower(): Strategy(with_database=True, unicode=False),
    (_PACKAGE + "DefaultUnicodeTopicNamingStrategy").lower(): Strategy(with_database=True, unicode=True),
    (_PACKAGE + "SchemaTopicNamingStrategy").lower(): Strategy(with_database=False, unicode=False),
    (_PACKAGE + "SchemaUnicodeTopicNamingStrategy").lower(): Strategy(with_database=False, unicode=True),
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


def data_topic_name(topics: TopicSettings, table_id: TableId) -> str:
    """The data topic of `table_id` (also the base of its record schema names)."""
    return sanitize_topic_name(_raw_name(topics, table_id), _strategy(topics).unicode)


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
            if topic != raw:
                log.warning("Topic '%s' name isn't a valid topic name, replacing it with '%s'.", raw, topic)
            self._cache[table_id] = topic
        return topic

    def tables_for(self, topic: str) -> list[TableId]:
        """The tables whose records go to `topic` (for naming them when Kafka refuses it)."""
        return [table_id for table_id, name in self._cache.items() if name == topic]
