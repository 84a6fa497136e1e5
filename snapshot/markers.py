"""Values of the `snapshot` source field Debezium puts on snapshot records (streamed records carry "false")."""
from __future__ import annotations

MARKER_FIRST = "first"
MARKER_FIRST_IN_TABLE = "first_in_data_collection"
MARKER_LAST_IN_TABLE = "last_in_data_collection"
MARKER_LAST = "last"
MARKER_TRUE = "true"
