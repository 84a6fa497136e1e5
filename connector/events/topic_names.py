"""Data topic names as Debezium's DefaultTopicNamingStrategy makes them: `prefix.db.table`, sanitized.

Kafka accepts only `[a-zA-Z0-9._-]` in a topic name. Debezium's TopicNameSanitizer replaces every other
UTF-16 code unit with `_` (so `ü` is one `_` and a character outside the BMP is two) and logs a WARNING
once per table (its names are cached per table id, as here).
"""

from __future__ import annotations

import logging
import string

from connector.config.settings import TopicSettings
from schema_history.model import TableId

__all__ = ["TopicNamer", "sanitize_topic_name"]

log = logging.getLogger(__name__)

_VALID = frozenset(string.ascii_letters + string.digits + "._-")


def sanitize_topic_name(name: str) -> str:
    """`name` with each character Kafka refuses replaced by `_`, counted in UTF-16 code units as Java does."""
    if all(c in _VALID for c in name):
        return name
    return "".join(c if c in _VALID else "_" * (2 if ord(c) > 0xFFFF else 1) for c in name)


class TopicNamer:
    """The data topic of each table, computed once per table id."""

    def __init__(self, topics: TopicSettings) -> None:
        self._topics = topics
        self._cache: dict[TableId, str] = {}

    def data_topic(self, table_id: TableId) -> str:
        topic = self._cache.get(table_id)
        if topic is None:
            raw = self._topics.data_topic(table_id.database, table_id.table)
            topic = sanitize_topic_name(raw)
            if topic != raw:
                log.warning("Topic '%s' name isn't a valid topic name, replacing it with '%s'.", raw, topic)
            self._cache[table_id] = topic
        return topic

    def tables_for(self, topic: str) -> list[TableId]:
        """The tables whose records go to `topic` (for naming them when Kafka refuses it)."""
        return [table_id for table_id, name in self._cache.items() if name == topic]
