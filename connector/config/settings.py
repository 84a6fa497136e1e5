"""Typed settings, one frozen dataclass per concern, built once from the raw property strings.

Inner code receives these objects, never a dict of properties. Each property is declared once, in fields.py
(name, default, parser, doc); a settings field that holds it names it with `prop(...)` (declared.py) and takes
its default from there. `build_settings` reports every invalid or missing value in one `ConfigError`, naming
the property and the fix. The concerns live in their own modules and are re-exported here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from connector.config import modes
from connector.config.database_settings import DatabaseSettings, DatabaseSslSettings, FilterSettings, GtidSourceSettings
from connector.config.declared import prop, read_declared
from connector.config.event_settings import EventSettings, TopicSettings
from connector.config.families import column_mappers, select_overrides
from connector.config.custom_converters import custom_converters
from connector.config.fields import BY_NAME, FIELDS
from connector.config.ha_settings import HaSettings, ha_problems, ha_settings
from connector.config.kafka_settings import KafkaSettings
from connector.config.post_processors import ReselectSettings, post_processors
from connector.config.secret import Secret
from connector.config.snapshot_settings import ConfigurationBasedSettings, SnapshotSettings
from connector.config.store_settings import (HISTORY_FILE, HISTORY_KAFKA, HISTORY_MEMORY, OFFSETS_FILE, OFFSETS_KAFKA,
                                             OFFSETS_MEMORY, HistorySettings, OffsetSettings, history_store,
                                             offset_settings)
from connector.errors import ConfigError
from connector.config.reader import PropertyReader
from connector.config.refusals import refused_properties
from connector.config.signal_settings import SignalSettings, new_tables_problems, signal_settings
from connector.config.transform_specs import TransformSettings

__all__ = [
    "HISTORY_FILE", "HISTORY_KAFKA", "HISTORY_MEMORY", "OFFSETS_FILE", "OFFSETS_KAFKA", "OFFSETS_MEMORY",
    "ConfigurationBasedSettings", "DatabaseSettings", "DatabaseSslSettings", "EventSettings", "FilterSettings",
    "GtidSourceSettings", "HistorySettings", "KafkaSettings", "OffsetSettings", "Settings", "SignalSettings",
    "SnapshotSettings", "TopicSettings", "TransformCheck", "all_field_names", "build_settings",
]

# Checks the transforms of a configuration (connector/transforms/config.py): handed in by the caller, so config/
# need not import the transform catalog (which imports events/, which imports config/).
TransformCheck = Callable[[dict[str, str], str, list[str]], TransformSettings]


@dataclass(frozen=True)
class Settings:
    name: str
    topics: TopicSettings
    database: DatabaseSettings
    filters: FilterSettings
    events: EventSettings
    snapshot: SnapshotSettings
    history: HistorySettings
    offsets: OffsetSettings
    kafka: KafkaSettings
    heartbeat_interval_ms: int = prop("heartbeat.interval.ms")
    heartbeat_action_query: str | None = prop("heartbeat.action.query")
    max_batch_size: int = prop("max.batch.size")
    max_queue_size: int = prop("max.queue.size")
    max_queue_size_in_bytes: int = prop("max.queue.size.in.bytes")
    errors_max_retries: int = prop("errors.max.retries")
    errors_tolerance: modes.ErrorTolerance = prop("errors.tolerance")
    errors_log_enable: bool = prop("errors.log.enable")
    errors_log_include_messages: bool = prop("errors.log.include.messages")
    message_key_columns: str | None = prop("message.key.columns")
    gtid_source: GtidSourceSettings = field(default_factory=GtidSourceSettings)
    gtid_ignore_on_recovery: bool = prop("gtid.ignore.on.recovery")
    guardrail_max: int = prop("guardrail.collections.max")
    guardrail_action: modes.GuardrailCollectionsLimitAction = prop("guardrail.collections.limit.action")
    # connector.class: with Debezium's MariaDbConnector, offsets carry MariaDB GTID positions
    connector_class: str = prop("connector.class", empty=BY_NAME["connector.class"].default)
    metrics_port: int = prop("metrics.port")
    metrics_host: str = prop("metrics.host")
    metric_tags: tuple[tuple[str, str], ...] = prop("custom.metric.tags", empty=())
    # custom.sanitize.pattern: checked here; LoadedConfig.redacted masks the logged configuration with it
    sanitize_pattern: str | None = prop("custom.sanitize.pattern")
    purge_check_interval_ms: int = prop("binlog.purge.check.interval.ms")
    # encode.workers: processes rendering change events (connector/dispatch/encode_pool.py); 0: none
    encode_workers: int = prop("encode.workers")
    signals: SignalSettings = field(default_factory=SignalSettings)
    ha: HaSettings = field(default_factory=HaSettings)  # high availability (connector/ha/)
    transforms: TransformSettings = field(default_factory=TransformSettings)
    # post.processors (connector/config/post_processors.py): ReselectColumnsPostProcessor instances, in order
    post_processors: tuple[ReselectSettings, ...] = ()

    @property
    def mariadb_connector(self) -> bool:
        """connector.class is Debezium's MariaDB connector (offsets carry `gtids` as `domain-server-seq`)."""
        return self.connector_class.endswith("MariaDbConnector")

    @property
    def partition_key(self) -> list[Any]:
        """Kafka Connect's offset partition key: `["<name>", {"server": "<topic.prefix>"}]`."""
        return [self.name, {"server": self.topics.prefix}]


def build_settings(raw: dict[str, str], kafka: KafkaSettings, default_offsets_file: str | None = None,
                   transform_check: TransformCheck | None = None) -> Settings:
    r = PropertyReader(raw)
    prefix = r.get("topic.prefix") or ""
    name = raw.get("name") or prefix or "binlog-cdc"

    ssl = read_declared(DatabaseSslSettings, r,
                        truststore_password=Secret(raw.get("database.ssl.truststore.password") or ""),
                        keystore_password=Secret(raw.get("database.ssl.keystore.password") or ""))
    r.problems.extend(ssl.problems())
    database = read_declared(
        DatabaseSettings, r, ssl=ssl, password=Secret(raw.get("database.password") or ""),
        initial_statements=tuple(s.strip() for s in (r.get("database.initial.statements") or "").split(";")
                                 if s.strip()))
    filters = read_declared(FilterSettings, r)
    for a, b in (("database.include.list", "database.exclude.list"), ("table.include.list", "table.exclude.list"),
                 ("column.include.list", "column.exclude.list")):
        if raw.get(a) and raw.get(b):
            r.problems.append(f"{a} and {b} cannot both be set; keep one of them")

    events = read_declared(EventSettings, r, column_mappers=column_mappers(raw, r.problems),
                           custom_converters=custom_converters(raw, r.problems))
    topics = read_declared(TopicSettings, r, prefix=prefix)
    r.problems += topics.regex_problems()
    snapshot = read_declared(
        SnapshotSettings, r, select_overrides=select_overrides(raw, r.problems),
        tables_order_by_row_count=(r.get("snapshot.tables.order.by.row.count") or "disabled").strip().lower(),
        configuration_based=read_declared(ConfigurationBasedSettings, r))
    if r.get("snapshot.query.mode") == modes.SnapshotQueryMode.CUSTOM:
        r.problems.append("snapshot.query.mode=custom loads a Java SnapshotQuery implementation "
                          f"({raw.get('snapshot.query.mode.custom.name') or 'snapshot.query.mode.custom.name'}), "
                          "which a Python connector cannot run: use snapshot.query.mode=select_all and give a table "
                          "its own statement with snapshot.select.statement.overrides=<db.table> plus "
                          "snapshot.select.statement.overrides.<db.table>=SELECT ...")
    history = read_declared(
        HistorySettings, r, store=history_store(r),
        kafka_bootstrap_servers=r.get("schema.history.internal.kafka.bootstrap.servers") or kafka.bootstrap_servers(),
        client_name=r.get("schema.history.internal.name") or f"{prefix}-schemahistory",
        consumer_overrides=_prefixed(raw, "schema.history.internal.consumer."),
        producer_overrides=_prefixed(raw, "schema.history.internal.producer."))
    if history.store == HISTORY_KAFKA:
        if not history.kafka_topic:
            r.problems.append("schema.history.internal.kafka.topic is required with KafkaSchemaHistory "
                              "(or set schema.history.internal=io.debezium.storage.file.history.FileSchemaHistory)")
        if not history.kafka_bootstrap_servers:
            r.problems.append("schema.history.internal.kafka.bootstrap.servers is required with KafkaSchemaHistory")
    if history.store == HISTORY_FILE and not history.file_filename:
        r.problems.append("schema.history.internal.file.filename is required with FileSchemaHistory")

    offsets = offset_settings(r, default_offsets_file)
    if not kafka.bootstrap_servers():
        r.problems.append("the Kafka bootstrap servers are missing: set debezium.sink.kafka.producer.bootstrap.servers "
                          "(Debezium Server properties) or pass --kafka HOST:PORT")
    connector_class = raw.get("connector.class", "")
    if connector_class and not connector_class.endswith(("MySqlConnector", "MariaDbConnector")):
        r.problems.append(f"connector.class={connector_class!r}: binlog-cdc implements the MySQL/MariaDB connector only")

    r.problems += refused_properties(raw)
    transforms = transform_check(raw, kafka.header_format, r.problems) if transform_check else TransformSettings()

    settings = read_declared(
        Settings, r, name=name, topics=topics, database=database, filters=filters, events=events, snapshot=snapshot,
        history=history, offsets=offsets, kafka=kafka, gtid_source=read_declared(GtidSourceSettings, r),
        signals=signal_settings(r), ha=ha_settings(r, prefix), transforms=transforms,
        post_processors=post_processors(raw, r.problems))
    r.problems += ha_problems(settings.ha, "transactional.id" in kafka.producer, offsets.store == OFFSETS_KAFKA,
                              history.store == HISTORY_KAFKA)
    if settings.encode_workers and "string" in (kafka.key_format, kafka.value_format):
        # the workers render JsonConverter text only
        r.problems.append(f"encode.workers={settings.encode_workers} works with the JSON converters only; with "
                          f"{kafka.key_format}/{kafka.value_format} converters set encode.workers=0")
    registering = [f for f in ("avro", "protobuf") if f in (kafka.key_format, kafka.value_format)]
    if settings.encode_workers and registering:
        # AvroConverter and ProtobufConverter register each new schema as they meet it: from several processes the
        # registry's ids would come in another order than Debezium's (one converter), so workers are for JSON only.
        r.problems.append(f"encode.workers={settings.encode_workers} works with the JSON converters only; with "
                          f"the {' and '.join(f.capitalize() for f in registering)} converter set encode.workers=0")
    if settings.encode_workers and settings.post_processors:
        # a re-select queries the server between decoding a row and rendering it: in this process only
        r.problems.append(f"encode.workers={settings.encode_workers} renders rows in worker processes, which do not "
                          "run post.processors; with post.processors set encode.workers=0")
    if snapshot.new_tables == modes.NewTablesMode.INCREMENTAL:
        r.problems += new_tables_problems(settings.signals, history.store_only_captured_tables_ddl)
    if r.problems:
        raise ConfigError(r.problems)
    return settings


def _prefixed(raw: dict[str, str], prefix: str) -> dict[str, str]:
    return {k[len(prefix):]: v for k, v in raw.items() if k.startswith(prefix)}


def all_field_names() -> list[str]:
    return [f.name for f in FIELDS]
