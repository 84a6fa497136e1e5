"""Read a configuration file (Debezium Server properties or Kafka Connect JSON) and the environment.

Both formats end up as the same thing: the connector's own property strings (Debezium names, no
prefix) plus the Kafka sink settings. Unknown properties are returned as warnings, by name.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

from connector.config.cloudevents_options import CLOUDEVENTS_CONVERTER, cloudevents_options
from connector.config.fields import BY_NAME, JDBC_DRIVER_PROPERTY, is_known
from connector.config.registry import RegistryAccess, format_option_problems, registry_access, without_userinfo
from connector.config.secret import MASK, sanitizer
from connector.config.post_processors import legacy_option_prefixes
from connector.config.refusals import is_refused_name
from connector.config.typos import is_user_named, likely_typo
from connector.config.settings import KafkaSettings, Settings, TransformCheck, build_settings
from connector.errors import ConfigError

SOURCE_PREFIX = "debezium.source."
# Kafka's StringConverter (Connect JSON configurations only: Debezium Server has no such format)
STRING_CONVERTER = "org.apache.kafka.connect.storage.StringConverter"
PRODUCER_PREFIX = "debezium.sink.kafka.producer."
FORMAT_PREFIX = "debezium.format."
# Kafka Connect converter classes (lower case, as refusals.py compares them) → binlog-cdc's format of that side.
_CONNECT_CONVERTERS = {"org.apache.kafka.connect.json.jsonconverter": "json",
                       "io.confluent.connect.avro.avroconverter": "avro", CLOUDEVENTS_CONVERTER.lower(): "cloudevents",
                       "io.confluent.connect.protobuf.protobufconverter": "protobuf",
                       STRING_CONVERTER.lower(): "string"}
# the formats whose converter registers schemas (Confluent's AvroConverter and ProtobufConverter)
_REGISTRY_FORMATS = ("avro", "protobuf")
# Debezium Server keeps offsets in a file unless told otherwise.
SERVER_DEFAULT_OFFSETS_FILE = "data/offsets.dat"


@dataclass
class LoadedConfig:
    source: dict[str, str]
    kafka: KafkaSettings
    warnings: list[str] = field(default_factory=list)
    default_offsets_file: str | None = None

    def settings(self, transform_check: TransformCheck) -> Settings:
        """The typed settings; misspelled property names are reported with every other problem. `transform_check`
        is connector.transforms.config.transform_settings, handed in so that config/ does not import the transform
        catalog (which imports events/, which imports config/)."""
        typos = typo_problems(self.source)
        try:
            settings = build_settings(self.source, self.kafka, self.default_offsets_file, transform_check)
        except ConfigError as exc:
            raise ConfigError(typos + exc.problems) from None
        if typos:
            raise ConfigError(typos)
        return settings

    def redacted(self) -> dict[str, str]:
        """The connector properties as Debezium logs them: a value masked when its name matches
        custom.sanitize.pattern (default: Debezium's password pattern)."""
        masked = sanitizer(self.source.get("custom.sanitize.pattern") or None)
        return {k: (MASK if masked(k) else v) for k, v in sorted(self.source.items())}


def parse_java_properties(text: str) -> dict[str, str]:
    """java.util.Properties.load semantics: `=`, `:` or blank separators, `#`/`!` comments,
    backslash line continuation and escapes (\\t \\n \\uXXXX \\= \\:)."""
    logical: list[str] = []
    buf = ""
    for line in text.splitlines():
        stripped = line.lstrip()
        if not buf and (not stripped or stripped[0] in "#!"):
            continue
        # An odd number of trailing backslashes continues the line.
        trailing = len(stripped) - len(stripped.rstrip("\\"))
        if trailing % 2 == 1:
            buf += stripped[:-1]
            continue
        logical.append(buf + stripped)
        buf = ""
    if buf:
        logical.append(buf)
    out: dict[str, str] = {}
    for entry in logical:
        key, value = _split_entry(entry)
        out[_unescape(key)] = _unescape(value)
    return out


def _split_entry(entry: str) -> tuple[str, str]:
    i = 0
    while i < len(entry):
        ch = entry[i]
        if ch == "\\":
            i += 2
            continue
        if ch in "=: \t":
            key = entry[:i]
            rest = entry[i:].lstrip(" \t")
            if rest[:1] in ("=", ":") and ch in " \t":
                rest = rest[1:].lstrip(" \t")
            elif ch in "=:":
                rest = entry[i + 1:].lstrip(" \t")
            return key, rest
        i += 1
    return entry, ""


def _unescape(text: str) -> str:
    out = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text):
            nxt = text[i + 1]
            if nxt == "u" and i + 5 < len(text) + 0:
                out.append(chr(int(text[i + 2:i + 6], 16)))
                i += 6
                continue
            out.append({"t": "\t", "n": "\n", "r": "\r", "f": "\f"}.get(nxt, nxt))
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def env_to_properties(environ: Mapping[str, str]) -> dict[str, str]:
    """Debezium Server / MicroProfile convention: `DEBEZIUM_SOURCE_DATABASE_HOSTNAME` → `debezium.source.database.hostname`.

    Names that contain `_` or `-` themselves (e.g. `snapshot.mode.configuration.based.start.stream`
    has none, but JDBC pass-through names can) are matched against the known property table first.
    """
    known = {_env_key("debezium.source." + name): "debezium.source." + name for name in BY_NAME}
    out: dict[str, str] = {}
    for key, value in environ.items():
        if not key.startswith("DEBEZIUM_"):
            continue
        out[known.get(key, key.lower().replace("_", "."))] = value
    return out


def _env_key(prop: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in prop).upper()


def load_server_properties(props: dict[str, str]) -> LoadedConfig:
    source: dict[str, str] = {}
    producer: dict[str, str] = {}
    formats: dict[str, str] = {}
    warnings: list[str] = []
    for key, value in props.items():
        if key.startswith(SOURCE_PREFIX):
            source[key[len(SOURCE_PREFIX):]] = value
        elif key.startswith(PRODUCER_PREFIX):
            producer[key[len(PRODUCER_PREFIX):]] = value
        elif key.startswith(FORMAT_PREFIX):
            formats[key[len(FORMAT_PREFIX):]] = value
        elif key.startswith(("debezium.transforms", "debezium.predicates")) and key[9:].split(".")[0] in (
                "transforms", "predicates"):
            # Debezium Server hands debezium.transforms.* / debezium.predicates.* to the engine as transforms.* /
            # predicates.*, next to the source properties
            source[key[len("debezium."):]] = value
        elif key == "debezium.sink.type":
            if value != "kafka":
                raise ConfigError([f"debezium.sink.type={value!r}: binlog-cdc writes to Kafka only; set debezium.sink.type=kafka"])
        elif key.startswith(("quarkus.", "debezium.sink.")):
            warnings.append(f"{key} is not used by binlog-cdc")
        else:
            warnings.append(f"unknown property {key} (Debezium Server properties start with debezium.source., "
                            f"debezium.sink.kafka.producer. or debezium.format.)")
    warnings += _unknown_source_warnings(source)
    kafka = _kafka_settings(producer, formats, header_default="json", warnings=warnings)
    return LoadedConfig(source=source, kafka=kafka, warnings=warnings, default_offsets_file=SERVER_DEFAULT_OFFSETS_FILE)


def load_connect_json(doc: dict, bootstrap: str | None, producer_overrides: dict[str, str]) -> LoadedConfig:
    if not isinstance(doc, dict) or not isinstance(doc.get("config"), dict):
        raise ConfigError(['a Kafka Connect connector JSON must look like {"name": "...", "config": {...}}'])
    source = {str(k): str(v) for k, v in doc["config"].items()}
    if doc.get("name") and "name" not in source:
        source["name"] = str(doc["name"])
    producer = dict(producer_overrides)
    if bootstrap:
        producer["bootstrap.servers"] = bootstrap
    formats: dict[str, str] = {}
    for side in ("key", "value"):
        # other classes, and header.converter, are refused by name in refusals.py
        fmt = _CONNECT_CONVERTERS.get(source.get(f"{side}.converter", "").strip().lower())
        if fmt and (fmt != "cloudevents" or side == "value"):
            formats[side] = fmt
        # the converter's own options (registry URL, credentials, TLS, ...): the same names as debezium.format.<side>.*
        prefix = f"{side}.converter."
        formats.update({f"{side}.{k[len(prefix):]}": v for k, v in source.items() if k.startswith(prefix)})
    warnings = _unknown_source_warnings(source)
    # Kafka Connect's default header converter is SimpleHeaderConverter: raw strings.
    kafka = _kafka_settings(producer, formats, header_default="simple", warnings=warnings)
    return LoadedConfig(source=source, kafka=kafka, warnings=warnings)


def _unknown_source_names(source: Mapping[str, str]) -> list[str]:
    # a custom converter's options are `<name>.<option>`, `<name>` listed in `converters` (checked in its parser)
    converters = tuple(n.strip() + "." for n in (source.get("converters") or "").split(",") if n.strip())
    converters += legacy_option_prefixes(source)  # post.processors' `<name>.*` (Debezium's deprecated spelling)
    return [k for k in sorted(source) if not is_known(k) and not (converters and k.startswith(converters))]


def _unknown_source_warnings(source: dict[str, str]) -> list[str]:
    typos = set(_typos(source))
    return [f"unknown connector property {k} (ignored)" for k in _unknown_source_names(source) if k not in typos] \
        + _jdbc_driver_warnings(source, typos)


def _jdbc_driver_warnings(source: Mapping[str, str], typos: set[str]) -> list[str]:
    """Accepted so that Debezium configurations carry over, but never silently: each is named at start (a
    misspelt property of ours, database.hostnme, is reported as that instead)."""
    out = []
    for k in sorted(source):
        if k in BY_NAME or k in typos or is_refused_name(k) or not JDBC_DRIVER_PROPERTY.fullmatch(k):
            continue
        why = ("; temporal values are read in a UTC session, a TIMESTAMP as its exact instant whatever the "
               "server's time zone" if "timezone" in k.lower() else "")
        out.append(f"{k} is a JDBC driver property: binlog-cdc has no JDBC driver and does not use it{why}")
    return out


def _typos(source: Mapping[str, str]) -> dict[str, str]:
    """Property set -> the known property it misspells. Names a family pattern accepts are checked too
    (`signal.data.colection`, `database.hostnme` would otherwise pass as a signal or JDBC setting), except those
    whose parts the user names (SMTs, converters, producer options, JDBC's camelCase settings)."""
    converters = tuple(n.strip() + "." for n in (source.get("converters") or "").split(",") if n.strip())
    converters += legacy_option_prefixes(source)
    out = {}
    for name in sorted(source):
        if name in BY_NAME or is_refused_name(name) or is_user_named(name) or (converters and name.startswith(converters)):
            continue
        meant = likely_typo(name, BY_NAME)
        if meant is not None:
            out[name] = meant
    return out


def typo_problems(source: Mapping[str, str]) -> list[str]:
    """A property name close to a known one is a typo that would silently change the result (a misspelt
    table.include.list captures every table): one problem each, naming the property meant."""
    return [f"unknown property {name}; did you mean {meant}?" for name, meant in _typos(source).items()]


def _kafka_settings(producer: dict[str, str], formats: dict[str, str], header_default: str,
                    warnings: list[str]) -> KafkaSettings:
    problems = []
    key_format = formats.get("key", "json")
    value_format = formats.get("value", "json")
    connect = header_default == "simple"  # a Kafka Connect configuration (Connect's default header converter)
    for side, fmt in (("key", key_format), ("value", value_format)):
        if fmt == "string" and connect:
            continue
        if fmt not in ("json", "avro", "protobuf") and not (side == "value" and fmt == "cloudevents"):
            problems.append(f"debezium.format.{side}={fmt!r} is not supported; use json, avro or protobuf"
                            + (" (or cloudevents for the value)" if side == "key" else ", or cloudevents"))
    ce_data_schemas, ce_extensions = True, True
    if value_format == "cloudevents":
        # the converter's own options (debezium.format.value.<name>): checked here, none reaches the Avro checks
        ce_options = {k[len("value."):]: formats.pop(k) for k in [k for k in formats if k.startswith("value.")]}
        if "schemas.enable" in ce_options:
            problems.append("debezium.format.value.schemas.enable: the CloudEvents converter does not read it; "
                            "set debezium.format.value.json.schemas.enable (Connect JSON: "
                            "value.converter.json.schemas.enable) for the schema of `data`")
            del ce_options["schemas.enable"]
        ce_data_schemas, ce_extensions, ce_problems = cloudevents_options(ce_options)
        problems += ce_problems
    urls = {side: formats.get(f"{side}.schema.registry.url", formats.get("schema.registry.url"))
            for side in ("key", "value")}
    for side, fmt in (("key", key_format), ("value", value_format)):
        if fmt in _REGISTRY_FORMATS and not urls[side]:
            problems.append(f"debezium.format.{side}={fmt} needs a Schema Registry: set "
                            f"debezium.format.{side}.schema.registry.url (Connect JSON: "
                            f"{side}.converter.schema.registry.url)")
    header_format = formats.get("header", header_default)
    if header_format not in ("json", "simple"):
        problems.append(f"debezium.format.header={header_format!r} is not supported; use json")
    problems += format_option_problems(formats, {"key": key_format, "value": value_format, "header": header_format},
                                       connect=header_default == "simple")
    access = {}
    for side, fmt in (("key", key_format), ("value", value_format)):
        access[side] = RegistryAccess()
        if fmt in _REGISTRY_FORMATS and urls[side]:
            access[side], side_problems = registry_access(formats, side, urls[side])
            urls[side] = without_userinfo(urls[side])
            problems += side_problems
    if problems:
        raise ConfigError(problems)

    def schemas(side: str) -> bool:
        text = formats.get(f"{side}.schemas.enable", formats.get("schemas.enable", "true"))
        if side == "value" and value_format == "cloudevents":
            return ce_data_schemas
        return text.strip().lower() != "false"

    return KafkaSettings(
        producer=dict(producer),
        key_format=key_format,
        value_format=value_format,
        header_format=header_format,
        key_schemas_enable=schemas("key"),
        value_schemas_enable=schemas("value"),
        key_schema_registry_url=urls["key"] if key_format in _REGISTRY_FORMATS else None,
        value_schema_registry_url=urls["value"] if value_format in _REGISTRY_FORMATS else None,
        key_registry_access=access["key"],
        value_registry_access=access["value"],
        value_cloudevents_extensions=ce_extensions,
    )


def load_config(path: str | Path, *, bootstrap: str | None = None, producer_overrides: dict[str, str] | None = None,
                environ: Mapping[str, str] | None = None) -> LoadedConfig:
    """Load CONFIG: `.json` is a Kafka Connect connector config, anything else Debezium Server properties.

    Environment variables in Debezium Server's convention (`DEBEZIUM_SOURCE_...`) override the file.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError([f"cannot read configuration file {path}: {exc.strerror}"]) from None
    env_props = env_to_properties(environ if environ is not None else os.environ)
    if path.suffix.lower() == ".json" or text.lstrip().startswith("{"):
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ConfigError([f"{path} is not valid JSON: {exc}"]) from None
        loaded = load_connect_json(doc, bootstrap, producer_overrides or {})
        for key, value in env_props.items():
            if key.startswith(SOURCE_PREFIX):
                loaded.source[key[len(SOURCE_PREFIX):]] = value
        return loaded
    props = parse_java_properties(text)
    props.update(env_props)
    if bootstrap:
        props[PRODUCER_PREFIX + "bootstrap.servers"] = bootstrap
    for key, value in (producer_overrides or {}).items():
        props[PRODUCER_PREFIX + key] = value
    return load_server_properties(props)
