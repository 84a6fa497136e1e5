"""Where schema history records are kept: Kafka topic, file or memory, behind one Protocol."""

from schema_history.stores.base import SchemaHistoryStore
from schema_history.stores.file import FileHistoryStore
from schema_history.stores.memory import MemoryHistoryStore

__all__ = ["SchemaHistoryStore", "FileHistoryStore", "MemoryHistoryStore", "KafkaHistoryStore"]


def __getattr__(name: str):  # confluent-kafka is only imported when the Kafka store is used
    if name == "KafkaHistoryStore":
        from schema_history.stores.kafka import KafkaHistoryStore

        return KafkaHistoryStore
    raise AttributeError(name)
