"""Single message transforms and predicates (Kafka Connect's and Debezium's), compiled per schema.

    configuration (transforms=, predicates=) ─► config.transform_settings (checked, refused by name)
        ─► chain.build_chain ─► RecordEncoder chains (connector/dispatch/encoder.py)

`catalog.py` lists what is implemented and what is refused; each transform builds its output schemas
once per input schema (`structs.PerSchema`), so the record path only rearranges values.
"""

from connector.transforms.chain import build_chain
from connector.config.transform_specs import PredicateSpec, TransformSettings, TransformSpec
from connector.transforms.config import transform_settings

__all__ = ["PredicateSpec", "TransformSettings", "TransformSpec", "build_chain", "transform_settings"]
