"""Debezium's enumerated settings, spelled exactly as Debezium spells them.

Each enum's value is the string a user writes in the configuration; `parse` gives one error message
that lists the accepted spellings, and knows the names Debezium removed so it can name the new one.
"""

from __future__ import annotations

from enum import Enum
from typing import TypeVar

E = TypeVar("E", bound="DebeziumEnum")


class DebeziumEnum(str, Enum):
    @classmethod
    def parse(cls: type[E], prop: str, text: str) -> E:
        wanted = text.strip().lower()
        for member in cls:
            if member.value == wanted:
                return member
        renamed = _RENAMED.get((cls.__name__, wanted))
        hint = f"; use '{renamed}' instead ('{text}' is not accepted by Debezium 3)" if renamed else ""
        allowed = ", ".join(m.value for m in cls)
        raise ValueError(f"{prop}={text!r} is not one of: {allowed}{hint}")

    def __str__(self) -> str:
        return self.value


class SnapshotMode(DebeziumEnum):
    INITIAL = "initial"
    INITIAL_ONLY = "initial_only"
    NO_DATA = "no_data"
    NEVER = "never"
    WHEN_NEEDED = "when_needed"
    ALWAYS = "always"
    RECOVERY = "recovery"
    CONFIGURATION_BASED = "configuration_based"
    CUSTOM = "custom"


class NewTablesMode(DebeziumEnum):
    """binlog-cdc's `snapshot.new.tables`: what a restart does with tables the filters newly match."""

    OFF = "off"
    INCREMENTAL = "incremental"


class SnapshotLockingMode(DebeziumEnum):
    # Not minimal_at_least_once: Debezium 3.6.3's MySQL connector refuses it ("Value must be one of minimal,
    # minimal_percona, custom, none, minimal_percona_no_table_locks, extended"; the reference harness on basic.sql,
    # issue 24); its MariaDB connector's enum has no such value either; it exists only in the binlog module's enum.
    MINIMAL = "minimal"
    MINIMAL_PERCONA = "minimal_percona"
    MINIMAL_PERCONA_NO_TABLE_LOCKS = "minimal_percona_no_table_locks"
    EXTENDED = "extended"
    NONE = "none"
    CUSTOM = "custom"


class ErrorTolerance(DebeziumEnum):
    """Kafka Connect's `errors.tolerance`."""

    NONE = "none"
    ALL = "all"


class GuardrailCollectionsLimitAction(DebeziumEnum):
    WARN = "warn"
    FAIL = "fail"


class SnapshotQueryMode(DebeziumEnum):
    SELECT_ALL = "select_all"
    CUSTOM = "custom"


class DecimalHandlingMode(DebeziumEnum):
    PRECISE = "precise"
    DOUBLE = "double"
    STRING = "string"


class TimePrecisionMode(DebeziumEnum):
    ADAPTIVE_TIME_MICROSECONDS = "adaptive_time_microseconds"
    CONNECT = "connect"
    ISOSTRING = "isostring"
    MICROSECONDS = "microseconds"
    NANOSECONDS = "nanoseconds"


class BigIntUnsignedHandlingMode(DebeziumEnum):
    LONG = "long"
    PRECISE = "precise"


class BinaryHandlingMode(DebeziumEnum):
    BYTES = "bytes"
    BASE64 = "base64"
    BASE64_URL_SAFE = "base64-url-safe"
    HEX = "hex"


class SchemaNameAdjustmentMode(DebeziumEnum):
    NONE = "none"
    AVRO = "avro"
    AVRO_UNICODE = "avro_unicode"


class FieldNameAdjustmentMode(DebeziumEnum):
    NONE = "none"
    AVRO = "avro"
    AVRO_UNICODE = "avro_unicode"


class EventProcessingFailureHandlingMode(DebeziumEnum):
    FAIL = "fail"
    WARN = "warn"
    SKIP = "skip"
    IGNORE = "ignore"


class EventConvertingFailureHandlingMode(DebeziumEnum):
    """What Debezium's TableSchemaBuilder does with a column whose converter throws: fail stops; warn and skip
    leave the field unset (its default, or null) and log at WARN or DEBUG."""

    FAIL = "fail"
    WARN = "warn"
    SKIP = "skip"


class InconsistentSchemaHandlingMode(DebeziumEnum):
    FAIL = "fail"
    WARN = "warn"
    SKIP = "skip"


class SecureConnectionMode(DebeziumEnum):
    DISABLED = "disabled"
    PREFERRED = "preferred"
    REQUIRED = "required"
    VERIFY_CA = "verify_ca"
    VERIFY_IDENTITY = "verify_identity"


class Operation(str, Enum):
    """Envelope `op` codes."""

    READ = "r"
    CREATE = "c"
    UPDATE = "u"
    DELETE = "d"
    TRUNCATE = "t"
    MESSAGE = "m"


_RENAMED: dict[tuple[str, str], str] = {
    ("SnapshotMode", "schema_only"): "no_data",
    ("SnapshotMode", "schema_only_recovery"): "recovery",
    ("TimePrecisionMode", "adaptive"): "adaptive_time_microseconds",
}
