"""Debezium's `ExtractChangedRecordState`: headers listing the fields an update changed and kept.

Every change event gets the configured headers (`header.changed.name`, `header.unchanged.name`), each
an optional array of optional strings named after the header; they are empty unless the event has both
`before` and `after` (an update). Fields are compared as stored (`getWithoutDefault`), in `after`'s order.
"""

from __future__ import annotations

from connector.events.kinds import ConnectRecord
from connector.serde.connect_schema import ConnectSchema, Type
from connector.transforms.headers import HeaderCodec
from connector.transforms.structs import PerSchema, as_row, field_index

__all__ = ["ExtractChangedRecordState"]


def _names_schema(name: str) -> ConnectSchema:
    return ConnectSchema(Type.ARRAY, optional=True, name=name, items=ConnectSchema(Type.STRING, optional=True))


class ExtractChangedRecordState:
    def __init__(self, changed_header: str | None, unchanged_header: str | None, codec: HeaderCodec) -> None:
        self._changed = (changed_header, _names_schema(changed_header)) if changed_header and changed_header.strip() else None
        self._unchanged = ((unchanged_header, _names_schema(unchanged_header))
                           if unchanged_header and unchanged_header.strip() else None)
        self._codec = codec
        self._plans = PerSchema(self._plan)

    @staticmethod
    def _plan(schema: ConnectSchema | None) -> tuple[int, int, ConnectSchema] | None:
        if schema is None or not schema.name or not schema.name.endswith(".Envelope"):
            return None
        before, after = field_index(schema, "before"), field_index(schema, "after")
        assert before is not None and after is not None
        return before, after, schema.fields[after].schema

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        if record.value is None:
            return record
        plan = self._plans(record.value_schema)
        if plan is None:
            return record
        before_i, after_i, row_schema = plan
        envelope = as_row(record.value_schema, record.value)  # type: ignore[arg-type]
        before, after = envelope[before_i], envelope[after_i]
        changed: list[str] = []
        unchanged: list[str] = []
        if before is not None and after is not None:
            for f, old, new in zip(row_schema.fields, as_row(row_schema, before), as_row(row_schema, after)):
                (unchanged if old == new else changed).append(f.name)
        # Appended to the record's own header list, as Debezium adds them to `record.headers()`: a delete and its
        # tombstone share one list (connector/dispatch), so the tombstone carries the delete's headers too.
        for spec, names in ((self._changed, changed), (self._unchanged, unchanged)):
            if spec is not None:
                record.headers.append((spec[0], self._codec.encode(spec[1], names)))
        return record
