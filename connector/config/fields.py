"""Every connector property, declared once as data: name, default, parser and documentation.

Names and defaults are Debezium 3.6's (debezium-properties.tsv), so existing configurations carry
over. `--help-properties` prints this table; `settings.py` reads values only through it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable

from connector.config import modes

Parser = Callable[[str, str], Any]


def as_str(prop: str, text: str) -> str:
    return text


def as_bool(prop: str, text: str) -> bool:
    lowered = text.strip().lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    raise ValueError(f"{prop}={text!r} must be true or false")


def as_int(prop: str, text: str) -> int:
    try:
        return int(text.strip())
    except ValueError:
        raise ValueError(f"{prop}={text!r} must be a whole number") from None


def as_non_negative_int(prop: str, text: str) -> int:
    value = as_int(prop, text)
    if value < 0:
        raise ValueError(f"{prop}={text!r} must be zero or positive")
    return value


def as_positive_int(prop: str, text: str) -> int:
    value = as_int(prop, text)
    if value < 1:
        raise ValueError(f"{prop}={text!r} must be 1 or more")
    return value


def as_positive_long(prop: str, text: str) -> int:
    value = as_int(prop, text)
    if not 0 < value < 2**32:
        raise ValueError(f"{prop}={text!r} must be a positive number below 2^32 (a replica server id)")
    return value


def as_list(prop: str, text: str) -> tuple[str, ...]:
    return tuple(p.strip() for p in text.split(",") if p.strip())


def as_regex_list(prop: str, text: str) -> tuple[str, ...]:
    patterns = as_list(prop, text)
    for p in patterns:
        try:
            re.compile(p)
        except re.error as exc:
            raise ValueError(f"{prop}: {p!r} is not a valid regular expression ({exc})") from None
    return patterns


def as_regex(prop: str, text: str) -> str:
    try:
        re.compile(text)
    except re.error as exc:
        raise ValueError(f"{prop}: {text!r} is not a valid regular expression ({exc})") from None
    return text


def as_enum(cls: type[modes.DebeziumEnum]) -> Parser:
    def parse(prop: str, text: str) -> Any:
        return cls.parse(prop, text)

    return parse


def as_operations(prop: str, text: str) -> frozenset[str]:
    """`skipped.operations`: comma list of c,u,d,t or `none`."""
    items = {p.lower() for p in as_list(prop, text)}
    if items == {"none"}:
        return frozenset()
    bad = items - {"c", "u", "d", "t", "r"}
    if bad:
        raise ValueError(f"{prop}={text!r}: unknown operation(s) {sorted(bad)}; use c, u, d, t or none")
    return frozenset(items)


_LABEL_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def as_metric_tags(prop: str, text: str) -> tuple[tuple[str, str], ...]:
    """`custom.metric.tags`: `k1=v1,k2=v2`, in order, a repeated key keeping its last value (Debezium's
    LinkedHashMap). Debezium appends them to its MBean names, which the JMX exporter turns into labels; here they
    are the labels themselves, so a key must be a Prometheus label name."""
    tags: dict[str, str] = {}
    for entry in as_list(prop, text):
        key, sep, value = (part.strip() for part in entry.partition("="))
        if not sep or "=" in value or not key:
            raise ValueError(f"{prop}={text!r}: {entry!r} is not a key=value pair")
        if not _LABEL_NAME.fullmatch(key) or key.startswith("__"):
            raise ValueError(f"{prop}={text!r}: the tag key {key!r} is not a valid metric label name "
                             "(letters, digits and _, not starting with a digit or __)")
        tags[key] = value
    return tuple(tags.items())


@dataclass(frozen=True)
class Field:
    name: str
    default: str | None
    parse: Parser
    doc: str
    required: bool = False

    def value(self, raw: dict[str, str]) -> Any:
        text = raw.get(self.name, self.default)
        if text is None:
            return None
        return self.parse(self.name, text)


F = Field
E = as_enum

FIELDS: tuple[Field, ...] = (
    # --- identity and connection
    F("name", None, as_str, "Connector name; the first element of the offset partition key.", required=False),
    F("connector.class", "io.debezium.connector.mysql.MySqlConnector", as_str, "Accepted for compatibility; must be the MySQL (or MariaDB) connector."),
    F("tasks.max", "1", as_int, "Always 1 for MySQL."),
    F("topic.prefix", None, as_str, "Logical server name; prefix of every topic and schema name.", required=True),
    F("database.hostname", None, as_str, "MySQL/MariaDB host.", required=True),
    F("database.port", "3306", as_int, "MySQL/MariaDB port."),
    F("database.user", None, as_str, "Replication user.", required=True),
    F("database.password", None, as_str, "Password of database.user."),
    F("database.server.id", None, as_positive_long, "Numeric id of this replica; unique in the replication topology.", required=True),
    F("database.server.id.offset", "10000", as_int, "Added to server.id for extra snapshot connections."),
    F("database.ssl.mode", "preferred", E(modes.SecureConnectionMode),
      "TLS to the database: disabled, preferred (TLS if offered, unverified), required (unverified), verify_ca, "
      "verify_identity (the verify modes need database.ssl.truststore or database.ssl.ca)."),
    F("database.ssl.truststore", None, as_str, "CA certificates to verify the server with: a JKS, JCEKS, PKCS#12 or "
      "PEM file."),
    F("database.ssl.truststore.password", None, as_str, "Password of database.ssl.truststore (optional for JKS)."),
    F("database.ssl.keystore", None, as_str, "Client certificate and key: a JKS, JCEKS or PKCS#12 file (the key's "
      "password must be the store's)."),
    F("database.ssl.keystore.password", None, as_str, "Password of database.ssl.keystore."),
    F("database.ssl.ca", None, as_str, "Beyond Debezium, for users without keytool: PEM file of the CA "
      "certificate(s); instead of database.ssl.truststore."),
    F("database.ssl.cert", None, as_str, "Beyond Debezium: PEM file of the client certificate (chain); with "
      "database.ssl.key, instead of database.ssl.keystore."),
    F("database.ssl.key", None, as_str, "Beyond Debezium: PEM file of the client certificate's unencrypted private key."),
    F("database.initial.statements", None, as_str, "Semicolon-separated SQL run on every new JDBC-like connection."),
    F("database.query.timeout.ms", "600000", as_int, "Timeout of queries."),
    F("connect.timeout.ms", "30000", as_int, "Connection timeout."),
    F("connect.keep.alive", "true", as_bool, "Reconnect the binlog client when it disconnects."),
    F("connect.keep.alive.interval.ms", "60000", as_int, "Keep-alive check interval."),
    # --- filters
    F("database.include.list", None, as_regex_list, "Databases to capture (anchored regexes)."),
    F("database.exclude.list", None, as_regex_list, "Databases not to capture (anchored regexes)."),
    F("table.include.list", None, as_regex_list, "Tables to capture, `db.table` anchored regexes."),
    F("table.exclude.list", None, as_regex_list, "Tables not to capture."),
    F("column.include.list", None, as_regex_list, "Columns to include, `db.table.column` regexes."),
    F("column.exclude.list", None, as_regex_list, "Columns to exclude."),
    F("table.ignore.builtin", "true", as_bool, "Ignore mysql, performance_schema, sys, information_schema."),
    F("message.key.columns", None, as_str, "Custom message keys: `db.tbl:c1,c2;db2.t2:c`."),
    F("column.propagate.source.type", None, as_regex_list, "Add __debezium.source.column.* parameters for matching columns."),
    F("datatype.propagate.source.type", None, as_regex_list, "Same, by data type name."),
    # --- value representation
    F("decimal.handling.mode", "precise", E(modes.DecimalHandlingMode), "DECIMAL as Connect Decimal, double or string."),
    F("time.precision.mode", "adaptive_time_microseconds", E(modes.TimePrecisionMode), "Temporal representation."),
    F("bigint.unsigned.handling.mode", "long", E(modes.BigIntUnsignedHandlingMode), "BIGINT UNSIGNED as long or Decimal."),
    F("binary.handling.mode", "bytes", E(modes.BinaryHandlingMode), "Binary columns as bytes, base64, base64-url-safe or hex."),
    F("schema.name.adjustment.mode", "none", E(modes.SchemaNameAdjustmentMode), "Sanitize schema names for Avro."),
    F("field.name.adjustment.mode", "none", E(modes.FieldNameAdjustmentMode), "Sanitize field names for Avro."),
    F("include.schema.comments", "false", as_bool, "Column comments as schema doc."),
    F("enable.time.adjuster", "true", as_bool, "Two-digit years to four digits."),
    F("source.struct.version", "v2", as_str, "Only v2 exists."),
    # --- event emission
    F("include.schema.changes", "true", as_bool, "Emit schema change events on the <topic.prefix> topic."),
    F("include.query", "false", as_bool, "Put the original SQL into source.query (needs row query events)."),
    F("tombstones.on.delete", "true", as_bool, "Emit a null-value record after each delete."),
    F("skipped.operations", "t", as_operations, "Operations not emitted: c,u,d,t or none."),
    F("skip.messages.without.change", "false", as_bool, "Skip updates that change no included column."),
    F("provide.transaction.metadata", "false", as_bool, "Emit BEGIN/END records and the transaction block."),
    F("extended.headers.enabled", "true", as_bool, "Add the __debezium.context.* headers."),
    F("topic.delimiter", ".", as_str, "Delimiter between topic name parts."),
    F("topic.transaction", "transaction", as_str, "Suffix of the transaction topic."),
    F("topic.heartbeat.prefix", "__debezium-heartbeat", as_str, "Prefix of the heartbeat topic."),
    F("topic.heartbeat.name", None, as_str, "Full heartbeat topic name, overrides the prefix."),
    F("topic.naming.strategy", "io.debezium.schema.DefaultTopicNamingStrategy", as_str, "Data topic names (and the "
      "record schema names, which Debezium derives from them): io.debezium.schema.DefaultTopicNamingStrategy "
      "(prefix.db.table, characters Kafka refuses become _), DefaultUnicodeTopicNamingStrategy (they and _ become "
      "_uXXXX), SchemaTopicNamingStrategy (prefix.table: a MySQL table has no schema) or "
      "SchemaUnicodeTopicNamingStrategy; parts joined with topic.delimiter. DefaultRegexTopicNamingStrategy and "
      "SchemaRegexTopicNamingStrategy: the Default/Schema name, when topic.regex matches all of it, rewritten with "
      "topic.replacement, and the key given the physical table (topic.key.*)."),
    F("topic.regex", None, as_str, "Regex strategies (required there): a Java regex the whole Default/Schema "
      "topic name must match to be renamed."),
    F("topic.replacement", None, as_str, "Regex strategies (required there): the new topic name, Java replacement "
      "syntax ($1, ${name})."),
    F("topic.key.enforce.uniqueness", "true", as_bool, "Regex strategies: add a string field naming the physical "
      "table (the topic name before the regex) to every key, so rows of tables sharing a topic keep apart; a table "
      "without a primary key gets a key of that field alone."),
    F("topic.key.field.name", "__dbz__physicalTableIdentifier", as_str, "Regex strategies: that key field's name."),
    F("topic.key.field.regex", None, as_str, "Regex strategies: a Java regex the physical table name must match "
      "whole to be rewritten with topic.key.field.replacement in that key field."),
    F("topic.key.field.replacement", None, as_str, "Regex strategies: the key field's value when "
      "topic.key.field.regex matches (required with it)."),
    F("topic.cache.size", "10000", as_int, "Accepted for compatibility."),
    F("heartbeat.interval.ms", "0", as_non_negative_int, "Heartbeat interval; 0 disables heartbeats."),
    F("heartbeat.action.query", None, as_str, "SQL run on each heartbeat."),
    # --- binlog-cdc's own service settings (not Debezium properties)
    F("metrics.port", "0", as_non_negative_int, "Port of the HTTP endpoint serving Prometheus metrics on /metrics "
      "(Debezium's streaming metric names) and health on /health; 0 disables it."),
    F("metrics.host", "0.0.0.0", as_str, "Address the metrics/health endpoint listens on."),
    F("custom.sanitize.pattern", None, as_regex, "Property names (a regular expression on the whole name, "
      "case-sensitive) whose values are masked as ******** where the configuration is logged (the connector's start); "
      "it replaces Debezium's default, which masks names ending in secret, password, sasl.jaas.config, "
      "basic.auth.user.info, registry.auth.client-secret, credentials.json, connectionstring, connection.string."),
    F("custom.metric.tags", None, as_metric_tags, "k1=v1,k2=v2: labels added to every metric after `server` (Debezium "
      "appends them to its MBean names, which the JMX exporter makes labels); a key `server` replaces its value."),
    F("post.processors", None, as_str, "Post processors, comma-separated names; each takes its class from "
      "post.processors.<name>.type (Debezium's deprecated <name>.type works too, with a warning) and options from "
      "post.processors.<name>.<option>. Debezium's one class, io.debezium.processors.reselect."
      "ReselectColumnsPostProcessor, is implemented: a create or update whose columns arrive NULL (or hold the "
      "unavailable-value placeholder) has them queried again by key; options reselect.columns.include.list / "
      ".exclude.list (regexes on db.table:column), reselect.null.values, reselect.unavailable.values (true), "
      "reselect.use.event.key (false), reselect.error.handling.mode (warn, fail). With encode.workers=0 only."),
    F("encode.workers", "0", as_non_negative_int, "Worker processes that decode binlog rows events and render "
      "their change events beside the connector's process (which reads the binlog, tracks offsets and produces), "
      "for machines with cores to spare; records keep binlog order. Not used for rows events with "
      "provide.transaction.metadata=true. 0: everything in the connector's process. JSON converters only."),
    F("ha.enabled", "false", as_bool, "High availability: instances started with the same configuration elect one "
      "active instance through a Kafka consumer group on ha.lease.topic; the others wait as standbys and one takes "
      "over from the committed offsets when the active one dies. Needs exactly-once delivery "
      "(producer transactional.id and offsets in a Kafka topic): the shared transactional.id fences a former active "
      "instance that comes back (docs/OPERATIONS.md)."),
    F("ha.takeover.ms", "10000", as_positive_int, "With ha.enabled: the time within which a standby takes over from "
      "an active instance that died, froze or lost Kafka. The lease's consumer session.timeout.ms is 40% of it, or 60% "
      "where the brokers' group.min.session.timeout.ms (6000 on Apache Kafka) refuses 40%; one of them must be "
      "allowed."),
    F("ha.lease.topic", None, as_str, "With ha.enabled: the single-partition topic whose consumer group elects the "
      "active instance (the member assigned partition 0); default <topic.prefix>.ha-lease, created if missing."),
    F("ha.instance.id", None, as_str, "With ha.enabled: this instance's name in logs, /health and metrics; default "
      "<hostname>-<pid>."),
    F("binlog.purge.check.interval.ms", "300000", as_non_negative_int, "How often the stored position is compared "
      "with the server's binary logs and the time left before it is purged is estimated; 0 checks only at start."),
    # --- GTID
    F("gtid.source.includes", None, as_regex_list, "GTID source UUIDs to use."),
    F("gtid.source.excludes", None, as_regex_list, "GTID source UUIDs to ignore."),
    F("gtid.source.filter.dml.events", "true", as_bool, "Filter DML of excluded GTID sources."),
    F("gtid.ignore.on.recovery", "false", as_bool, "Stream from the stored binlog file and position rather than "
      "its GTID set (the server keeps GTIDs on); as Debezium, streamed records then carry no GTID and offsets no "
      "gtids."),
    F("binlog.net.read.timeout", "0", as_non_negative_int, "net_read_timeout (seconds) of the binlog connection's "
      "session; 0 keeps the server's."),
    F("binlog.net.write.timeout", "0", as_non_negative_int, "net_write_timeout (seconds) of the binlog "
      "connection's session; 0 keeps the server's."),
    # --- snapshot
    F("use.nongraceful.disconnect", "false", as_bool, "Close the binlog connection with SO_LINGER 0 (a TCP reset "
      "instead of the orderly close and COM_QUIT), as mysql-binlog-connector-java's setUseNonGracefulDisconnect: "
      "a stop or reconnect does not wait on a peer or network that no longer answers."),
    F("snapshot.mode", "initial", E(modes.SnapshotMode), "When to snapshot."),
    F("snapshot.locking.mode", "minimal", E(modes.SnapshotLockingMode), "How to lock during the snapshot."),
    F("snapshot.lock.timeout.ms", "10000", as_non_negative_int, "Lock wait timeout during the snapshot."),
    F("snapshot.fetch.size", None, as_int, "Rows per fetch during the snapshot."),
    F("min.row.count.to.stream.results", "1000", as_non_negative_int, "Tables larger than this are read with a streaming result set."),
    F("snapshot.max.threads", "1", as_positive_int, "Parallel snapshot readers: connections opened under the same "
      "lock, each reading whole tables (largest first)."),
    F("legacy.snapshot.max.threads", "false", as_bool, "Accepted for compatibility: binlog-cdc's readers always "
      "read whole tables (Debezium's legacy table-per-thread algorithm, without its key-range chunks)."),
    F("snapshot.include.collection.list", None, as_regex_list, "Tables to snapshot (subset of the captured ones)."),
    F("snapshot.select.statement.overrides", None, as_str, "Tables whose snapshot SELECT is overridden."),
    F("snapshot.query.mode", "select_all", E(modes.SnapshotQueryMode), "How the snapshot SELECT is built; custom "
      "(a Java SnapshotQuery) is refused: use snapshot.select.statement.overrides."),
    F("snapshot.query.mode.custom.name", None, as_str, "Name of a Java SnapshotQuery (not supported)."),
    F("snapshot.mode.custom.name", None, as_str, "Name of a Java Snapshotter (not supported)."),
    F("snapshot.mode.configuration.based.snapshot.data", "false", as_bool,
      "configuration_based: snapshot table data (at every start)."),
    F("snapshot.mode.configuration.based.snapshot.schema", "false", as_bool,
      "configuration_based: snapshot table schemas (at every start)."),
    F("snapshot.mode.configuration.based.start.stream", "false", as_bool,
      "configuration_based: stream changes after the snapshot."),
    F("snapshot.mode.configuration.based.snapshot.on.schema.error", "false", as_bool,
      "configuration_based: rebuild a lost schema history from the current tables at the stored offset."),
    F("snapshot.mode.configuration.based.snapshot.on.data.error", "false", as_bool,
      "configuration_based: take a new snapshot when the stored binlog position was purged."),
    F("snapshot.delay.ms", "0", as_non_negative_int, "Delay before the snapshot starts."),
    F("snapshot.tables.order.by.row.count", "disabled", as_str, "ascending, descending or disabled."),
    F("snapshot.resume.enabled", "true", as_bool,
      "binlog-cdc: an interrupted initial snapshot resumes at its table and key, beside streaming, instead of "
      "starting over. Its watermarks write nothing by default (MySQL: GTID sets; MariaDB: the chunk view's binlog "
      "position); MySQL without GTIDs needs signal.data.collection."),
    F("snapshot.new.tables", "off", E(modes.NewTablesMode),
      "binlog-cdc: incremental — at a restart, tables the filters match now but did not match in the previous run "
      "are snapshotted incrementally beside streaming (needs signal.data.collection); off — as Debezium, they are "
      "only streamed."),
    F("streaming.delay.ms", "0", as_non_negative_int, "Wait before streaming starts, after a snapshot that was "
      "taken (not after a start that streams on from its offset)."),
    # --- failures and queueing
    F("event.processing.failure.handling.mode", "fail", E(modes.EventProcessingFailureHandlingMode), "What to do when an event cannot be processed."),
    F("event.converting.failure.handling.mode", "warn", E(modes.EventConvertingFailureHandlingMode), "A column "
      "value its converter cannot take (an ENUM/SET member of a binary character set, read by the snapshot): fail "
      "stops naming table, column and binlog position; warn and skip write the column's default (null when it has "
      "none) and log it at WARN or DEBUG, as Debezium's TableSchemaBuilder does."),
    F("inconsistent.schema.handling.mode", "fail", E(modes.InconsistentSchemaHandlingMode), "What to do when a row event does not match the known schema."),
    F("errors.max.retries", "-1", as_int, "Retries of retriable errors; -1 unlimited."),
    F("errors.tolerance", "none", E(modes.ErrorTolerance), "Kafka Connect's: none stops the connector on a record a "
      "transform or converter refuses; all skips that record (its offset still commits)."),
    F("errors.log.enable", "false", as_bool, "With errors.tolerance=all, log each skipped record's failure (Connect's "
      "LogReporter)."),
    F("errors.log.include.messages", "false", as_bool, "With errors.log.enable, include the skipped record in "
      "the log line."),
    F("max.batch.size", "2048", as_int, "Events per batch."),
    F("max.queue.size", "8192", as_int, "Events queued between reader and writer."),
    F("max.queue.size.in.bytes", "0", as_int, "Bytes queued; 0 unlimited."),
    F("poll.interval.ms", "500", as_int, "Wait for new events."),
    F("binlog.buffer.size", "0", as_int, "Accepted for compatibility."),
    # --- schema history
    F("schema.history.internal", "io.debezium.storage.kafka.history.KafkaSchemaHistory", as_str, "History store class: KafkaSchemaHistory, FileSchemaHistory or MemorySchemaHistory."),
    F("schema.history.internal.kafka.topic", None, as_str, "Single-partition topic holding the schema history."),
    F("schema.history.internal.kafka.bootstrap.servers", None, as_str, "Brokers of the history topic (default: the producer's)."),
    F("schema.history.internal.kafka.recovery.poll.interval.ms", "100", as_int, "Recovery poll interval."),
    F("schema.history.internal.kafka.recovery.attempts", "100", as_int, "Recovery attempts."),
    F("schema.history.internal.kafka.query.timeout.ms", "3000", as_int, "Admin query timeout."),
    F("schema.history.internal.kafka.create.timeout.ms", "30000", as_int, "Topic creation timeout."),
    F("schema.history.internal.file.filename", None, as_str, "History file for FileSchemaHistory."),
    F("schema.history.internal.name", None, as_str, "Client id of the history producer/consumer (default <topic.prefix>-schemahistory)."),
    F("schema.history.internal.skip.unparseable.ddl", "false", as_bool, "Skip DDL that cannot be parsed."),
    F("schema.history.internal.store.only.captured.tables.ddl", "false", as_bool, "Record DDL of captured tables only."),
    F("schema.history.internal.store.only.captured.databases.ddl", "false", as_bool, "Record DDL of captured databases only."),
    F("schema.history.internal.ddl.filter", None, as_str, "Regex of DDL statements to ignore (default: Debezium's list)."),
    F("schema.history.internal.prefer.ddl", "false", as_bool, "Recover by re-parsing DDL instead of tableChanges."),
    F("schema.history.internal.checkpoint.interval", "0", as_non_negative_int, "Beyond Debezium: after this many "
      "recorded DDL statements, record the whole schema so recovery replays only what follows (0 = never)."),
    # --- offsets
    F("offset.storage", None, as_str, "Offset store class: FileOffsetBackingStore, KafkaOffsetBackingStore or MemoryOffsetBackingStore."),
    F("offset.storage.file.filename", None, as_str, "Offsets file (Kafka Connect FileOffsetBackingStore format)."),
    F("offset.storage.topic", None, as_str, "Offsets topic (Kafka Connect format)."),
    F("offset.storage.partitions", "25", as_int, "Partitions of a new offsets topic."),
    F("offset.storage.replication.factor", "1", as_int, "Replication factor of a new offsets topic."),
    # Debezium Server leaves the interval to the engine's offset commit policy (PeriodicCommitOffsetPolicy),
    # whose default is one minute; its example application.properties sets 0.
    F("offset.flush.interval.ms", "60000", as_non_negative_int, "Offset commit interval (Debezium's default: one "
      "minute); 0 commits after every batch. Exactly-once mode, unless it is set: a Kafka transaction every 100 ms."),
    F("offset.flush.timeout.ms", "5000", as_int, "Flush timeout on commit."),
    # --- misc
    F("read.only", "false", as_bool, "Never write to the database."),
    F("signal.enabled.channels", "source", as_list, "Signal channels: source (the signal table), kafka, file; "
      "jmx and in-process are refused by name."),
    F("signal.poll.interval.ms", "5000", as_non_negative_int, "How often the kafka and file channels are read."),
    F("signal.file", "file-signals.txt", as_str, "The file channel's file: one JSON signal per line, emptied once "
      "read."),
    F("signal.kafka.topic", None, as_str, "The kafka channel's topic (default `<topic.prefix>-signal`), partition 0."),
    F("signal.kafka.bootstrap.servers", None, as_str, "The kafka channel's brokers (required with that channel)."),
    F("signal.kafka.groupId", "kafka-signal", as_str, "The kafka channel's consumer group."),
    F("signal.kafka.poll.timeout.ms", "0", as_non_negative_int, "How long one read of the signal topic waits."),
    F("signal.data.collection", None, as_str, "Signal table `db.table` (columns id, type, data); also where "
      "incremental snapshots write their watermarks."),
    F("incremental.snapshot.chunk.size", "1024", as_positive_int, "Rows per incremental snapshot chunk."),
    F("incremental.snapshot.allow.schema.changes", "false", as_bool, "true: an incremental snapshot reads a chunk "
      "only once the table's result columns were the same in two windows in a row, and drops (and reads again) a "
      "chunk whose columns changed, so rows read after an ALTER the schema history has not yet taken are never "
      "converted with the old structure; false: a chunk is read again only when the DDL reaches streaming."),
    F("incremental.snapshot.watermarking.strategy", "insert_insert", as_str, "Watermarks: insert_insert "
      "(insert_delete is refused by name)."),
    F("notification.enabled.channels", None, as_list, "Notification channels: log, sink (jmx is refused by name)."),
    F("notification.sink.topic.name", None, as_str, "The sink channel's topic (required with that channel)."),
    F("statistics.metrics.enabled", "true", as_bool, "Collect metrics."),
    F("guardrail.collections.max", "0", as_non_negative_int, "At start, the most tables the connector may capture "
      "(with store.only.captured.tables.ddl=false, the most tables whose schema it records); 0 disables the check."),
    F("guardrail.collections.limit.action", "warn", E(modes.GuardrailCollectionsLimitAction), "Past "
      "guardrail.collections.max: warn (log and go on) or fail (stop the start)."),
)

BY_NAME: dict[str, Field] = {f.name: f for f in FIELDS}

# Declared properties that change nothing here, and why: accepted so that Debezium configurations carry over,
# documented as such (docs/CONFIGURATION.md), never silently. Every other declared property is either held by a
# settings field (`prop`, declared.py), read by a settings builder, or refused (refusals.py); a test checks it.
NO_EFFECT: dict[str, str] = {
    "database.server.id.offset": "snapshot connections are plain SQL sessions, not replicas: they need no server id",
    "database.query.timeout.ms": "queries run without a client-side timeout",
    "connect.keep.alive.interval.ms": "a lost binlog connection is retried at once, then with backoff "
                                      "(errors.max.retries bounds it)",
    "topic.cache.size": "topic names are built once per table version",
    "legacy.snapshot.max.threads": "the snapshot readers always read whole tables",
    "poll.interval.ms": "the binlog is read as it arrives; there is no queue to poll",
    "binlog.buffer.size": "transactions are never buffered (Debezium's default, 0, too)",
    "schema.history.internal.kafka.recovery.poll.interval.ms": "the history topic is read to its end in one pass",
    "schema.history.internal.kafka.recovery.attempts": "the history topic is read to its end in one pass",
    "schema.history.internal.kafka.query.timeout.ms": "admin calls use the client's own timeouts",
    "schema.history.internal.kafka.create.timeout.ms": "admin calls use the client's own timeouts",
    "statistics.metrics.enabled": "metrics are always kept; they are served only with metrics.port",
    "snapshot.mode.custom.name": "snapshot.mode=custom (a Java Snapshotter) is refused",
}

# Debezium hands these to its JDBC driver (database.allowPublicKeyRetrieval, database.connectionTimeZone, ...).
# binlog-cdc has no JDBC driver: they are accepted, so configurations carry over, and named in a start warning.
JDBC_DRIVER_PROPERTY = re.compile(r"(database|driver)\.[A-Za-z][A-Za-z0-9]*")

# Families of properties whose names carry a parameter (column.mask.with.12.chars, ...).
PATTERN_PROPERTIES: tuple[re.Pattern[str], ...] = (
    re.compile(r"column\.mask\.with\.\d+\.chars"),
    re.compile(r"column\.truncate\.to\.\d+\.chars"),
    re.compile(r"column\.mask\.hash\.(v2\.)?[^.]+\.with\.salt\..+"),
    re.compile(r"snapshot\.select\.statement\.overrides\..+"),
    re.compile(r"snapshot\.mode\.configuration\.based\..+"),
    JDBC_DRIVER_PROPERTY,
    re.compile(r"schema\.history\.internal\.(producer|consumer)\..+"),
    re.compile(r"internal\..+"),
    re.compile(r"(key|value|header)\.converter(\..+)?"),
    re.compile(r"transforms(\..+)?|predicates(\..+)?|converters(\..+)?|post\.processors(\..+)?"),
    re.compile(r"errors\..+|signal\..+|notification\..+|incremental\.snapshot\..+|custom\..+"),
)


def is_known(name: str) -> bool:
    """A property binlog-cdc implements or knows to refuse (connector/config/refusals.py); others are unknown."""
    from connector.config.refusals import is_refused_name  # a leaf module: no cycle, kept out of the field table

    return name in BY_NAME or any(p.fullmatch(name) for p in PATTERN_PROPERTIES) or is_refused_name(name)
