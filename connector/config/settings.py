"""Typed settings, one frozen dataclass per concern, built once from the raw property strings.

Inner code receives these objects, never a dict of properties. `build_settings` reports every
invalid or missing value in one `ConfigError`, naming the property and the fix.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from connector.config import modes
from connector.config.families import ColumnMapperSettings, column_mappers, select_overrides
from connector.config.custom_converters import Rule, custom_converters
from connector.config.fields import BY_NAME, FIELDS
from connector.config.registry import RegistryAccess
from connector.config.secret import Secret
from connector.errors import ConfigError
from connector.config.reader import PropertyReader
from connector.config.refusals import refused_properties
from connector.config.signal_settings import SignalSettings, new_tables_problems, signal_settings
from connector.config.transform_specs import TransformSettings

HISTORY_KAFKA = "io.debezium.storage.kafka.history.KafkaSchemaHistory"
HISTORY_FILE = "io.debezium.storage.file.history.FileSchemaHistory"
HISTORY_MEMORY = "io.debezium.relational.history.MemorySchemaHistory"
OFFSETS_FILE = "org.apache.kafka.connect.storage.FileOffsetBackingStore"
OFFSETS_KAFKA = "org.apache.kafka.connect.storage.KafkaOffsetBackingStore"
OFFSETS_MEMORY = "org.apache.kafka.connect.storage.MemoryOffsetBackingStore"


@dataclass(frozen=True)
class DatabaseSslSettings:
    """`database.ssl.*`: the mode, Debezium's stores, and PEM files as the alternative (binlog/tls.py)."""

    mode: modes.SecureConnectionMode = modes.SecureConnectionMode.PREFERRED
    truststore: str | None = None
    truststore_password: Secret = Secret("")
    keystore: str | None = None
    keystore_password: Secret = Secret("")
    ca: str | None = None
    cert: str | None = None
    key: str | None = None

    def problems(self) -> list[str]:
        out = []
        verify = self.mode in (modes.SecureConnectionMode.VERIFY_CA, modes.SecureConnectionMode.VERIFY_IDENTITY)
        if verify and not (self.truststore or self.ca):
            out.append(f"database.ssl.mode={self.mode.value} needs the CA that signed the server's certificate: set "
                       f"database.ssl.truststore (JKS/PKCS#12, with database.ssl.truststore.password) or "
                       f"database.ssl.ca (PEM)")
        for ours, theirs in (("database.ssl.ca", "database.ssl.truststore"), ("database.ssl.cert", "database.ssl.keystore")):
            if getattr(self, ours.rsplit(".", 1)[1]) and getattr(self, theirs.rsplit(".", 1)[1]):
                out.append(f"{ours} and {theirs} cannot both be set; keep one of them")
        if self.key and not self.cert:
            out.append("database.ssl.key needs database.ssl.cert (the certificate of that key)")
        return out


@dataclass(frozen=True)
class DatabaseSettings:
    hostname: str
    port: int
    user: str
    password: Secret
    server_id: int
    ssl: DatabaseSslSettings
    connect_timeout_ms: int
    keep_alive: bool
    initial_statements: tuple[str, ...]


@dataclass(frozen=True)
class FilterSettings:
    database_include: tuple[str, ...] = ()
    database_exclude: tuple[str, ...] = ()
    table_include: tuple[str, ...] = ()
    table_exclude: tuple[str, ...] = ()
    column_include: tuple[str, ...] = ()
    column_exclude: tuple[str, ...] = ()
    ignore_builtin: bool = True


@dataclass(frozen=True)
class GtidSourceSettings:
    """`gtid.source.includes` / `gtid.source.excludes` (anchored regexes) and `gtid.source.filter.dml.events`."""

    includes: tuple[str, ...] = ()
    excludes: tuple[str, ...] = ()
    filter_dml: bool = True


@dataclass(frozen=True)
class EventSettings:
    """What gets emitted and how values are represented."""

    decimal_handling_mode: modes.DecimalHandlingMode = modes.DecimalHandlingMode.PRECISE
    time_precision_mode: modes.TimePrecisionMode = modes.TimePrecisionMode.ADAPTIVE_TIME_MICROSECONDS
    bigint_unsigned_handling_mode: modes.BigIntUnsignedHandlingMode = modes.BigIntUnsignedHandlingMode.LONG
    binary_handling_mode: modes.BinaryHandlingMode = modes.BinaryHandlingMode.BYTES
    schema_name_adjustment_mode: modes.SchemaNameAdjustmentMode = modes.SchemaNameAdjustmentMode.NONE
    field_name_adjustment_mode: modes.FieldNameAdjustmentMode = modes.FieldNameAdjustmentMode.NONE
    include_schema_comments: bool = False
    enable_time_adjuster: bool = True
    include_schema_changes: bool = True
    include_query: bool = False
    tombstones_on_delete: bool = True
    skipped_operations: frozenset[str] = frozenset({"t"})
    skip_messages_without_change: bool = False
    provide_transaction_metadata: bool = False
    extended_headers_enabled: bool = True
    event_processing_failure_handling_mode: modes.EventProcessingFailureHandlingMode = (
        modes.EventProcessingFailureHandlingMode.FAIL
    )
    inconsistent_schema_handling_mode: modes.InconsistentSchemaHandlingMode = modes.InconsistentSchemaHandlingMode.FAIL
    column_propagate_source_type: tuple[str, ...] = ()
    datatype_propagate_source_type: tuple[str, ...] = ()
    column_mappers: tuple[ColumnMapperSettings, ...] = ()  # in property order
    custom_converters: tuple[Rule, ...] = ()  # converters=... (TinyIntOneToBoolean, JdbcSinkDataTypes)


@dataclass(frozen=True)
class TopicSettings:
    prefix: str
    delimiter: str = "."
    transaction: str = "transaction"
    heartbeat_prefix: str = "__debezium-heartbeat"
    heartbeat_name: str | None = None

    def data_topic(self, database: str, table: str) -> str:
        return f"{self.prefix}{self.delimiter}{database}{self.delimiter}{table}"

    def schema_change_topic(self) -> str:
        return self.prefix

    def transaction_topic(self) -> str:
        return f"{self.prefix}{self.delimiter}{self.transaction}"

    def heartbeat_topic(self) -> str:
        return self.heartbeat_name or f"{self.heartbeat_prefix}{self.delimiter}{self.prefix}"


@dataclass(frozen=True)
class ConfigurationBasedSettings:
    """`snapshot.mode.configuration.based.*` (Debezium's ConfigurationBasedSnapshotter; all default false)."""

    snapshot_data: bool = False
    snapshot_schema: bool = False
    start_stream: bool = False
    snapshot_on_schema_error: bool = False
    snapshot_on_data_error: bool = False


@dataclass(frozen=True)
class SnapshotSettings:
    mode: modes.SnapshotMode = modes.SnapshotMode.INITIAL
    locking_mode: modes.SnapshotLockingMode = modes.SnapshotLockingMode.MINIMAL
    lock_timeout_ms: int = 10000
    fetch_size: int | None = None
    min_row_count_to_stream_results: int = 1000
    include_collection_list: tuple[str, ...] = ()
    # db.table -> SELECT, for the tables listed in snapshot.select.statement.overrides
    select_overrides: dict[str, str] = field(default_factory=dict)
    delay_ms: int = 0
    max_threads: int = 1
    tables_order_by_row_count: str = "disabled"
    resume_enabled: bool = True
    new_tables: modes.NewTablesMode = modes.NewTablesMode.OFF  # beyond Debezium: snapshot/new_tables.py
    configuration_based: ConfigurationBasedSettings = field(default_factory=ConfigurationBasedSettings)


@dataclass(frozen=True)
class HistorySettings:
    store: str  # one of HISTORY_*
    kafka_topic: str | None
    kafka_bootstrap_servers: str | None
    file_filename: str | None
    client_name: str
    skip_unparseable_ddl: bool
    store_only_captured_tables_ddl: bool
    store_only_captured_databases_ddl: bool
    ddl_filter: str | None
    prefer_ddl: bool
    checkpoint_interval: int = 0  # beyond Debezium: schema_history.checkpoint
    consumer_overrides: dict[str, str] = field(default_factory=dict)
    producer_overrides: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class OffsetSettings:
    store: str  # one of OFFSETS_*
    file_filename: str | None
    topic: str | None
    partitions: int
    replication_factor: int
    flush_interval_ms: int
    flush_timeout_ms: int
    # Whether offset.flush.interval.ms was given: exactly-once mode does not take the one-minute default.
    flush_interval_set: bool = False


@dataclass(frozen=True)
class KafkaSettings:
    """The sink. `producer` holds librdkafka properties (bootstrap.servers, security, ...)."""

    producer: dict[str, str]
    key_format: str = "json"
    value_format: str = "json"
    header_format: str = "json"
    key_schemas_enable: bool = True
    value_schemas_enable: bool = True
    # Confluent Schema Registry for the avro format (`schema.registry.url`, comma-separated list)
    key_schema_registry_url: str | None = None
    value_schema_registry_url: str | None = None
    # credentials and TLS of each side's registry client (connector/config/registry.py)
    key_registry_access: RegistryAccess = field(default_factory=RegistryAccess)
    value_registry_access: RegistryAccess = field(default_factory=RegistryAccess)
    # value_format=cloudevents: the converter's extension.attributes.enable (json.schemas.enable is
    # value_schemas_enable, the schema of its `data`)
    value_cloudevents_extensions: bool = True

    def bootstrap_servers(self) -> str | None:
        return self.producer.get("bootstrap.servers")


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
    heartbeat_interval_ms: int
    heartbeat_action_query: str | None
    max_batch_size: int
    max_queue_size: int
    max_queue_size_in_bytes: int
    errors_max_retries: int
    message_key_columns: str | None
    gtid_source: GtidSourceSettings = field(default_factory=GtidSourceSettings)
    # connector.class: with Debezium's MariaDbConnector, offsets carry MariaDB GTID positions
    connector_class: str = "io.debezium.connector.mysql.MySqlConnector"
    metrics_port: int = 0
    metrics_host: str = "0.0.0.0"
    purge_check_interval_ms: int = 300000
    # encode.workers: processes rendering change events (connector/dispatch/encode_pool.py); 0: none
    encode_workers: int = 0
    signals: SignalSettings = field(default_factory=SignalSettings)
    transforms: TransformSettings = field(default_factory=TransformSettings)

    @property
    def mariadb_connector(self) -> bool:
        """connector.class is Debezium's MariaDB connector (offsets carry `gtids` as `domain-server-seq`)."""
        return self.connector_class.endswith("MariaDbConnector")

    @property
    def partition_key(self) -> list[Any]:
        """Kafka Connect's offset partition key: `["<name>", {"server": "<topic.prefix>"}]`."""
        return [self.name, {"server": self.topics.prefix}]


def build_settings(raw: dict[str, str], kafka: KafkaSettings, default_offsets_file: str | None = None) -> Settings:
    r = PropertyReader(raw)
    prefix = r.get("topic.prefix") or ""
    name = raw.get("name") or prefix or "binlog-cdc"
    password = raw.get("database.password") or ""

    database = DatabaseSettings(
        hostname=r.get("database.hostname") or "",
        port=r.get("database.port"),
        user=r.get("database.user") or "",
        password=Secret(password),
        server_id=r.get("database.server.id") or 0,
        ssl=DatabaseSslSettings(
            mode=r.get("database.ssl.mode"),
            truststore=r.get("database.ssl.truststore"),
            truststore_password=Secret(raw.get("database.ssl.truststore.password") or ""),
            keystore=r.get("database.ssl.keystore"),
            keystore_password=Secret(raw.get("database.ssl.keystore.password") or ""),
            ca=r.get("database.ssl.ca"),
            cert=r.get("database.ssl.cert"),
            key=r.get("database.ssl.key"),
        ),
        connect_timeout_ms=r.get("connect.timeout.ms"),
        keep_alive=r.get("connect.keep.alive"),
        initial_statements=tuple(s.strip() for s in (raw.get("database.initial.statements") or "").split(";") if s.strip()),
    )
    r.problems.extend(database.ssl.problems())
    filters = FilterSettings(
        database_include=r.get("database.include.list") or (),
        database_exclude=r.get("database.exclude.list") or (),
        table_include=r.get("table.include.list") or (),
        table_exclude=r.get("table.exclude.list") or (),
        column_include=r.get("column.include.list") or (),
        column_exclude=r.get("column.exclude.list") or (),
        ignore_builtin=r.get("table.ignore.builtin"),
    )
    for a, b in (("database.include.list", "database.exclude.list"), ("table.include.list", "table.exclude.list"),
                 ("column.include.list", "column.exclude.list")):
        if raw.get(a) and raw.get(b):
            r.problems.append(f"{a} and {b} cannot both be set; keep one of them")

    events = EventSettings(
        decimal_handling_mode=r.get("decimal.handling.mode"),
        time_precision_mode=r.get("time.precision.mode"),
        bigint_unsigned_handling_mode=r.get("bigint.unsigned.handling.mode"),
        binary_handling_mode=r.get("binary.handling.mode"),
        schema_name_adjustment_mode=r.get("schema.name.adjustment.mode"),
        field_name_adjustment_mode=r.get("field.name.adjustment.mode"),
        include_schema_comments=r.get("include.schema.comments"),
        enable_time_adjuster=r.get("enable.time.adjuster"),
        include_schema_changes=r.get("include.schema.changes"),
        include_query=r.get("include.query"),
        tombstones_on_delete=r.get("tombstones.on.delete"),
        skipped_operations=r.get("skipped.operations"),
        skip_messages_without_change=r.get("skip.messages.without.change"),
        provide_transaction_metadata=r.get("provide.transaction.metadata"),
        extended_headers_enabled=r.get("extended.headers.enabled"),
        event_processing_failure_handling_mode=r.get("event.processing.failure.handling.mode"),
        inconsistent_schema_handling_mode=r.get("inconsistent.schema.handling.mode"),
        column_propagate_source_type=r.get("column.propagate.source.type") or (),
        datatype_propagate_source_type=r.get("datatype.propagate.source.type") or (),
        column_mappers=column_mappers(raw, r.problems),
        custom_converters=custom_converters(raw, r.problems),
    )
    topics = TopicSettings(
        prefix=prefix,
        delimiter=r.get("topic.delimiter"),
        transaction=r.get("topic.transaction"),
        heartbeat_prefix=r.get("topic.heartbeat.prefix"),
        heartbeat_name=r.get("topic.heartbeat.name"),
    )
    overrides = select_overrides(raw, r.problems)
    snapshot = SnapshotSettings(
        mode=r.get("snapshot.mode"),
        locking_mode=r.get("snapshot.locking.mode"),
        lock_timeout_ms=r.get("snapshot.lock.timeout.ms"),
        fetch_size=r.get("snapshot.fetch.size"),
        min_row_count_to_stream_results=r.get("min.row.count.to.stream.results"),
        include_collection_list=r.get("snapshot.include.collection.list") or (),
        select_overrides=overrides,
        delay_ms=r.get("snapshot.delay.ms"),
        max_threads=r.get("snapshot.max.threads"),
        tables_order_by_row_count=(r.get("snapshot.tables.order.by.row.count") or "disabled").strip().lower(),
        resume_enabled=r.get("snapshot.resume.enabled"),
        new_tables=r.get("snapshot.new.tables"),
        configuration_based=ConfigurationBasedSettings(
            **{attr: r.get(f"snapshot.mode.configuration.based.{attr.replace('_', '.')}")
               for attr in ConfigurationBasedSettings.__dataclass_fields__}),
    )
    if r.get("snapshot.query.mode") == modes.SnapshotQueryMode.CUSTOM:
        r.problems.append("snapshot.query.mode=custom loads a Java SnapshotQuery implementation "
                          f"({raw.get('snapshot.query.mode.custom.name') or 'snapshot.query.mode.custom.name'}), "
                          "which a Python connector cannot run: use snapshot.query.mode=select_all and give a table "
                          "its own statement with snapshot.select.statement.overrides=<db.table> plus "
                          "snapshot.select.statement.overrides.<db.table>=SELECT ...")
    history_store = _history_store(raw.get("schema.history.internal") or BY_NAME["schema.history.internal"].default, r)
    history = HistorySettings(
        store=history_store,
        kafka_topic=r.get("schema.history.internal.kafka.topic"),
        kafka_bootstrap_servers=r.get("schema.history.internal.kafka.bootstrap.servers") or kafka.bootstrap_servers(),
        file_filename=r.get("schema.history.internal.file.filename"),
        client_name=raw.get("schema.history.internal.name") or f"{prefix}-schemahistory",
        skip_unparseable_ddl=r.get("schema.history.internal.skip.unparseable.ddl"),
        store_only_captured_tables_ddl=r.get("schema.history.internal.store.only.captured.tables.ddl"),
        store_only_captured_databases_ddl=r.get("schema.history.internal.store.only.captured.databases.ddl"),
        ddl_filter=r.get("schema.history.internal.ddl.filter"),
        prefer_ddl=r.get("schema.history.internal.prefer.ddl"),
        checkpoint_interval=r.get("schema.history.internal.checkpoint.interval"),
        consumer_overrides=_prefixed(raw, "schema.history.internal.consumer."),
        producer_overrides=_prefixed(raw, "schema.history.internal.producer."),
    )
    if history.store == HISTORY_KAFKA:
        if not history.kafka_topic:
            r.problems.append("schema.history.internal.kafka.topic is required with KafkaSchemaHistory "
                              "(or set schema.history.internal=io.debezium.storage.file.history.FileSchemaHistory)")
        if not history.kafka_bootstrap_servers:
            r.problems.append("schema.history.internal.kafka.bootstrap.servers is required with KafkaSchemaHistory")
    if history.store == HISTORY_FILE and not history.file_filename:
        r.problems.append("schema.history.internal.file.filename is required with FileSchemaHistory")

    offsets = _offset_settings(raw, r, default_offsets_file)
    if not kafka.bootstrap_servers():
        r.problems.append("the Kafka bootstrap servers are missing: set debezium.sink.kafka.producer.bootstrap.servers "
                          "(Debezium Server properties) or pass --kafka HOST:PORT")
    connector_class = raw.get("connector.class", "")
    if connector_class and not connector_class.endswith(("MySqlConnector", "MariaDbConnector")):
        r.problems.append(f"connector.class={connector_class!r}: binlog-cdc implements the MySQL/MariaDB connector only")

    r.problems += refused_properties(raw)
    # Imported here: checking a chain builds the transforms, which import connector.events (and that imports
    # this module's TopicSettings).
    from connector.transforms.config import transform_settings

    transforms = transform_settings(raw, kafka.header_format, r.problems)

    settings = Settings(
        name=name,
        topics=topics,
        database=database,
        filters=filters,
        events=events,
        snapshot=snapshot,
        history=history,
        offsets=offsets,
        kafka=kafka,
        heartbeat_interval_ms=r.get("heartbeat.interval.ms"),
        heartbeat_action_query=r.get("heartbeat.action.query"),
        max_batch_size=r.get("max.batch.size"),
        max_queue_size=r.get("max.queue.size"),
        max_queue_size_in_bytes=r.get("max.queue.size.in.bytes"),
        errors_max_retries=r.get("errors.max.retries"),
        message_key_columns=r.get("message.key.columns"),
        gtid_source=GtidSourceSettings(
            includes=r.get("gtid.source.includes") or (),
            excludes=r.get("gtid.source.excludes") or (),
            filter_dml=bool(r.get("gtid.source.filter.dml.events")),
        ),
        connector_class=r.get("connector.class") or BY_NAME["connector.class"].default,
        metrics_port=r.get("metrics.port"),
        metrics_host=r.get("metrics.host"),
        purge_check_interval_ms=r.get("binlog.purge.check.interval.ms"),
        encode_workers=r.get("encode.workers"),
        signals=signal_settings(r),
        transforms=transforms,
    )
    if settings.encode_workers and "avro" in (kafka.key_format, kafka.value_format):
        # AvroConverter registers each new schema as it meets it: from several processes the registry's ids
        # would come in another order than Debezium's (one converter), so workers are for JSON only.
        r.problems.append(f"encode.workers={settings.encode_workers} works with the JSON converters only; with "
                          "the Avro converter set encode.workers=0")
    if snapshot.new_tables == modes.NewTablesMode.INCREMENTAL:
        r.problems += new_tables_problems(settings.signals, history.store_only_captured_tables_ddl)
    if r.problems:
        raise ConfigError(r.problems)
    return settings


def _prefixed(raw: dict[str, str], prefix: str) -> dict[str, str]:
    return {k[len(prefix):]: v for k, v in raw.items() if k.startswith(prefix)}


_HISTORY_ALIASES = {
    "kafkaschemahistory": HISTORY_KAFKA,
    "fileschemahistory": HISTORY_FILE,
    "memoryschemahistory": HISTORY_MEMORY,
}


def _history_store(text: str, r: PropertyReader) -> str:
    short = text.rsplit(".", 1)[-1].lower()
    if short in _HISTORY_ALIASES:
        return _HISTORY_ALIASES[short]
    r.problems.append(f"schema.history.internal={text!r} is not supported; use {HISTORY_KAFKA} or {HISTORY_FILE}")
    return HISTORY_MEMORY


_OFFSET_ALIASES = {
    "fileoffsetbackingstore": OFFSETS_FILE,
    "kafkaoffsetbackingstore": OFFSETS_KAFKA,
    "memoryoffsetbackingstore": OFFSETS_MEMORY,
}


def _offset_settings(raw: dict[str, str], r: PropertyReader, default_file: str | None) -> OffsetSettings:
    cls = raw.get("offset.storage")
    if cls:
        store = _OFFSET_ALIASES.get(cls.rsplit(".", 1)[-1].lower())
        if store is None:
            r.problems.append(f"offset.storage={cls!r} is not supported; use {OFFSETS_FILE} or {OFFSETS_KAFKA}")
            store = OFFSETS_MEMORY
    elif raw.get("offset.storage.file.filename"):
        store = OFFSETS_FILE
    elif raw.get("offset.storage.topic"):
        store = OFFSETS_KAFKA
    elif default_file:
        store = OFFSETS_FILE
    else:
        store = OFFSETS_KAFKA
    settings = OffsetSettings(
        store=store,
        file_filename=raw.get("offset.storage.file.filename") or (default_file if store == OFFSETS_FILE else None),
        topic=raw.get("offset.storage.topic") or ("connect-offsets" if store == OFFSETS_KAFKA else None),
        partitions=r.get("offset.storage.partitions"),
        replication_factor=r.get("offset.storage.replication.factor"),
        flush_interval_ms=r.get("offset.flush.interval.ms"),
        flush_timeout_ms=r.get("offset.flush.timeout.ms"),
        flush_interval_set=raw.get("offset.flush.interval.ms") not in (None, ""),
    )
    if store == OFFSETS_FILE and not settings.file_filename:
        r.problems.append("offset.storage.file.filename is required with FileOffsetBackingStore")
    return settings


def all_field_names() -> list[str]:
    return [f.name for f in FIELDS]
