"""The CloudEvents converter's own options (`debezium.format.value.<name>` / `value.converter.<name>`), checked when
the configuration loads: which it implements, and the flags the serializer (serde/cloudevents.py) needs."""

from __future__ import annotations

from typing import Mapping

__all__ = ["CLOUDEVENTS_CONVERTER", "cloudevents_options"]

CLOUDEVENTS_CONVERTER = "io.debezium.converters.CloudEventsConverter"
# converter options (debezium.format.value.<name>): the default each must keep, or None when any value is fine
_OPTIONS: Mapping[str, str | None] = {
    "serializer.type": "json", "data.serializer.type": "json", "json.schemas.enable": None,
    "extension.attributes.enable": None, "opentelemetry.tracing.attributes.enable": "false",
    "metadata.source": "value,id:generate,type:generate,traceparent:header,dataSchemaName:generate",
    # name the event schema, which a JSON event never writes: accepted, nothing to do
    "schema.name.adjustment.mode": None, "schema.cloudevents.name": None,
    "schema.data.name.source.header.enable": "false",
}


def cloudevents_options(options: Mapping[str, str]) -> tuple[bool, bool, list[str]]:
    """(data schemas enabled, extension attributes enabled, problems) from the converter's own options."""
    problems = []
    for name, value in options.items():
        if name not in _OPTIONS:
            problems.append(f"CloudEvents converter property {name} is not implemented in binlog-cdc (it implements "
                            f"{', '.join(_OPTIONS)}); remove it")
        elif _OPTIONS[name] is not None and value.strip().lower() != _OPTIONS[name].lower():  # type: ignore[union-attr]
            problems.append(f"CloudEvents converter property {name}={value}: binlog-cdc implements only "
                            f"{name}={_OPTIONS[name]} (JSON events with JSON data, metadata from the value); "
                            "remove it")
    flags = []
    for name in ("json.schemas.enable", "extension.attributes.enable"):
        text = options.get(name, "true").strip().lower()
        if text not in ("true", "false"):
            problems.append(f"CloudEvents converter property {name}={text!r} must be true or false")
        flags.append(text != "false")
    return flags[0], flags[1], problems
