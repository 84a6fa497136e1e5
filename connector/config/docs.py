"""`docs/CONFIGURATION.md`, rendered from the property declarations (fields.py) and the refusals (refusals.py).

The page is generated, never edited by hand: `binlog-cdc properties --markdown > docs/CONFIGURATION.md`, and
tests/unit/config/test_configuration_doc.py fails when the committed page and the declarations disagree.
"""

from __future__ import annotations

from connector.config.fields import FIELDS, NO_EFFECT, Field
from connector.config.refusals import REFUSALS

__all__ = ["configuration_markdown"]

_HEAD = """# Configuration

Generated from the property declarations (`connector/config/fields.py`, `connector/config/refusals.py`) by
`binlog-cdc properties --markdown`; do not edit by hand. Names and defaults are Debezium 3.6's, so existing
configurations carry over. In a Debezium Server file each name takes the `debezium.source.` prefix; Kafka
producer settings take `debezium.sink.kafka.producer.`. A name within two edits of a known one stops the start as a typo, other unknown names
are named in a warning, and every refused property below stops the start by name with what to do instead. Transforms and predicates: `docs/TRANSFORMS.md`.
"""


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _row(f: Field) -> str:
    default = "" if f.default is None else f"`{f.default}`" if f.default != "" else '`""`'
    name = f"`{f.name}`" + (" (required)" if f.required else "")
    doc = f.doc + (f" No effect in binlog-cdc: {NO_EFFECT[f.name]}." if f.name in NO_EFFECT else "")
    return f"| {name} | {_cell(default)} | {_cell(doc)} |"


def configuration_markdown() -> str:
    lines = [_HEAD, "## Properties", "", "| property | default | what it does |", "|---|---|---|"]
    lines += [_row(f) for f in FIELDS]
    lines += ["", "## Refused properties", "",
              "Matched on the whole name (a regular expression); a value in the last column asks for nothing beyond",
              "what binlog-cdc does and is accepted.", "",
              "| name | what to do instead | accepted values |", "|---|---|---|"]
    lines += [f"| `{_cell(r.pattern)}` | {_cell(r.fix)} | {', '.join(f'`{v}`' for v in r.allowed)} |"
              for r in REFUSALS]
    return "\n".join(lines) + "\n"
