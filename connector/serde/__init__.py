"""Serialisation to the exact bytes Kafka Connect's JsonConverter (and Java) produce.

connect_schema (Connect schema model + cached JSON), json_values (payload writers), json_converter
(schema+payload envelope), java_text / java_legacy_float (Java 17 number text, Jackson strings),
java_hashmap (Java HashMap key order).
"""

from connector.serde.connect_schema import DECIMAL_NAME, NO_DEFAULT, ConnectSchema, Field, Type, struct
from connector.serde.json_converter import JsonConverter
from connector.serde.json_values import DataError, decimal_unscaled_bytes
from connector.java.text import jackson_string, java_double, java_float, to_float32

__all__ = [
    "ConnectSchema",
    "DECIMAL_NAME",
    "DataError",
    "Field",
    "JsonConverter",
    "NO_DEFAULT",
    "Type",
    "decimal_unscaled_bytes",
    "jackson_string",
    "java_double",
    "java_float",
    "struct",
    "to_float32",
]
