"""The configured transforms as the encoder's chains: one ordered chain, applied to every record kind
(data, tombstone, truncate, schema change, transaction, heartbeat) as Connect applies SMTs to every
record a source task emits. Objects are built once per run; each compiles per schema as records come.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Protocol, Sequence

from connector.events.kinds import ConnectRecord, RecordKind
from connector.events.records import HeaderFormat
from connector.transforms.catalog import PREDICATES, TRANSFORMS
from connector.config.transform_specs import TransformSettings
from connector.transforms.headers import HeaderCodec
from connector.transforms.routing import Guarded

__all__ = ["IdentityTransform", "RecordTransform", "Transforms", "build_chain"]


class RecordTransform(Protocol):
    """A single message transform: the record, changed or not, or None to drop it (as an SMT returning null)."""

    def apply(self, record: ConnectRecord) -> ConnectRecord | None: ...


@dataclass(frozen=True)
class IdentityTransform:
    """Returns every record unchanged (the transform slot's neutral element)."""

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        return record


# What `RecordEncoder` (connector/dispatch/encoder.py) runs: a chain per record kind. Declared here, on the
# transforms' side, so that the dispatcher imports the transforms and never the other way round.
Transforms = Mapping[RecordKind, Sequence[RecordTransform]]


def build_chain(settings: TransformSettings, header_format: HeaderFormat) -> Transforms:
    """`{kind: chain}` for `RecordEncoder`; empty when no transform is configured (the JSON fast path stays)."""
    if not settings.transforms:
        return {}
    codec = HeaderCodec(header_format)
    predicates = {p.name: PREDICATES[p.cls].build(dict(p.options), codec) for p in settings.predicates}
    chain: list[RecordTransform] = []
    for spec in settings.transforms:
        transform = TRANSFORMS[spec.cls].build(dict(spec.options), codec)
        if spec.predicate is not None:
            transform = Guarded(transform, predicates[spec.predicate], spec.negate)
        chain.append(transform)
    return {kind: tuple(chain) for kind in RecordKind}
