"""Signals: channels (today the `source` signal table seen in the binlog) → validated actions (actions.py,
filters.py) → the incremental snapshot (snapshot/incremental/), via processor.py."""

from connector.signals.actions import SignalRecord, SignalRejected, parse_action
from connector.signals.filters import FilterRejected, checked_filter
from connector.signals.processor import SignalingEmitter, SnapshotActions

__all__ = ["FilterRejected", "SignalRecord", "SignalRejected", "SignalingEmitter", "SnapshotActions",
           "checked_filter", "parse_action"]
