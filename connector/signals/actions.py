"""Signals → validated actions: what a signal asks for, checked before anything acts on it.

A signal is Debezium's triple (id, type, data), whatever channel brought it (`SignalRecord`). `parse_action`
turns it into one frozen action, or raises `SignalRejected` naming the signal's id and the reason; the
processor (processor.py) logs that and goes on, so a malformed signal never stops the connector. As
Debezium's SignalProcessor and its actions (ExecuteSnapshot, StopSnapshot, Pause/ResumeIncrementalSnapshot,
Log, the window watermarks): `data` is JSON; `execute-snapshot` needs `data-collections` (regular
expressions), `type` is `incremental` (the default) or `blocking`, `additional-conditions` entries pair a
`data-collection` regular expression with a `filter`. Filters are checked against the table later, when
its columns are known (filters.py); here only their shape.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Callable

__all__ = [
    "AdditionalCondition", "CloseWindow", "ExecuteSnapshot", "LogMessage", "OpenWindow", "PauseSnapshot",
    "ResumeSnapshot", "SetBinlogPosition", "SignalAction", "SignalRecord", "SignalRejected", "StopSnapshot", "parse_action",
]


class SignalRejected(ValueError):
    """A signal that cannot be acted on; logged with its id and ignored."""

    def __init__(self, signal_id: str, reason: str) -> None:
        super().__init__(f"signal '{signal_id}' ignored: {reason}")
        self.signal_id = signal_id


@dataclass(frozen=True)
class SignalRecord:
    id: str
    type: str
    data: str | None
    channel: str = "source"


@dataclass(frozen=True)
class AdditionalCondition:
    data_collection: re.Pattern[str]
    filter: str


@dataclass(frozen=True)
class ExecuteSnapshot:
    id: str
    kind: str  # "incremental" | "blocking"
    data_collections: tuple[str, ...]
    additional_conditions: tuple[AdditionalCondition, ...] = ()
    surrogate_key: str | None = None


@dataclass(frozen=True)
class StopSnapshot:
    id: str
    kind: str
    data_collections: tuple[str, ...]  # () stops every table


@dataclass(frozen=True)
class _Signalled:
    """An action that carries nothing but the signal's id."""

    id: str


class PauseSnapshot(_Signalled):
    """pause-snapshot: no new chunk until resume-snapshot."""


class ResumeSnapshot(_Signalled):
    """resume-snapshot: read the next chunk of a paused snapshot."""


class OpenWindow(_Signalled):
    """snapshot-window-open: the incremental snapshot's low watermark, seen in the binlog."""


class CloseWindow(_Signalled):
    """snapshot-window-close: the high watermark; the window's rows go out."""


@dataclass(frozen=True)
class SetBinlogPosition:
    """set-binlog-position (Debezium 3.6's MySQL SetBinlogPositionSignal): the offset to stream from at the next
    start, a binlog file and position or a completed GTID set."""

    id: str
    file: str | None
    pos: int | None
    gtids: str | None


@dataclass(frozen=True)
class LogMessage:
    id: str
    message: str


SignalAction = (ExecuteSnapshot | StopSnapshot | PauseSnapshot | ResumeSnapshot | LogMessage | OpenWindow
                | CloseWindow | SetBinlogPosition)
SNAPSHOT_KINDS = ("incremental", "blocking")


def _data(record: SignalRecord) -> dict[str, Any]:
    if not record.data:
        return {}
    try:
        data = json.loads(record.data)
    except json.JSONDecodeError as exc:
        raise SignalRejected(record.id, f"data is not JSON ({exc})") from None
    if not isinstance(data, dict):
        raise SignalRejected(record.id, "data is not a JSON object")
    return data


def _strings(record: SignalRecord, value: Any, what: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise SignalRejected(record.id, f"{what} must be a list of non-empty strings")
    return tuple(v.strip() for v in value)


def _pattern(record: SignalRecord, text: str) -> re.Pattern[str]:
    try:
        return re.compile(text)
    except re.error as exc:
        raise SignalRejected(record.id, f"'{text}' is not a regular expression ({exc})") from None


def _kind(record: SignalRecord, data: dict[str, Any]) -> str:
    kind = str(data.get("type") or "incremental").lower()
    if kind not in SNAPSHOT_KINDS:
        raise SignalRejected(record.id, f"snapshot type '{data.get('type')}' is not one of {', '.join(SNAPSHOT_KINDS)}")
    return kind


def _execute(record: SignalRecord) -> ExecuteSnapshot:
    data = _data(record)
    collections = _strings(record, data.get("data-collections"), "data-collections")
    if not collections:
        raise SignalRejected(record.id, "execute-snapshot names no data-collections")
    for text in collections:
        _pattern(record, text)
    conditions = []
    for entry in data.get("additional-conditions") or []:
        if not isinstance(entry, dict) or not isinstance(entry.get("data-collection"), str) \
                or not isinstance(entry.get("filter"), str):
            raise SignalRejected(record.id, "each additional-condition needs a data-collection and a filter")
        conditions.append(AdditionalCondition(_pattern(record, entry["data-collection"]), entry["filter"]))
    surrogate = data.get("surrogate-key")
    if surrogate is not None and (not isinstance(surrogate, str) or not surrogate.strip()):
        raise SignalRejected(record.id, "surrogate-key must be a column name")
    return ExecuteSnapshot(record.id, _kind(record, data), collections, tuple(conditions),
                           surrogate.strip() if surrogate else None)


def _stop(record: SignalRecord) -> StopSnapshot:
    data = _data(record)
    return StopSnapshot(record.id, _kind(record, data), _strings(record, data.get("data-collections"),
                                                                   "data-collections"))


def _log(record: SignalRecord) -> LogMessage:
    message = _data(record).get("message")
    if not isinstance(message, str):
        raise SignalRejected(record.id, "log needs a message")
    return LogMessage(record.id, message)


# Debezium's checks, word for word (SetBinlogPositionSignal.validateSignalData)
_BINLOG_FILE = re.compile(r"[a-zA-Z0-9_-]+\.\d{6}")
_UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}:\d+(-\d+)?"
_GTID_SET = re.compile(f"{_UUID}(,{_UUID})*")


def _set_binlog_position(record: SignalRecord) -> SetBinlogPosition:
    data = _data(record)
    if not data:
        raise SignalRejected(record.id, "set-binlog-position signal without data")
    file, pos, gtids = data.get("binlog_filename"), data.get("binlog_position"), data.get("gtid_set")
    has_file_pos, has_gtids = bool(file) or pos is not None, bool(gtids)
    if has_file_pos and has_gtids:
        raise SignalRejected(record.id, "Cannot specify both binlog file/position and GTID set")
    if not has_file_pos and not has_gtids:
        raise SignalRejected(record.id, "Must specify either binlog file/position or GTID set")
    if has_file_pos:
        if not file:
            raise SignalRejected(record.id, "Binlog filename must be specified when position is provided")
        if pos is None:
            raise SignalRejected(record.id, "Binlog position must be specified when filename is provided")
        if isinstance(pos, bool) or not isinstance(pos, int):
            raise SignalRejected(record.id, f"binlog_position {pos!r} is not a number")
        if pos < 0:
            raise SignalRejected(record.id, "Binlog position must be non-negative")
        if not isinstance(file, str) or not _BINLOG_FILE.fullmatch(file):
            raise SignalRejected(record.id, f"Invalid binlog filename format: {file}")
        return SetBinlogPosition(record.id, file, pos, None)
    if not isinstance(gtids, str) or not _GTID_SET.fullmatch(gtids):
        raise SignalRejected(record.id, f"Invalid GTID set format: {gtids}")
    return SetBinlogPosition(record.id, None, None, gtids)


# Debezium's action names (StandardActionProvider, MySqlSignalActionProvider), each with its parser.
PARSERS: dict[str, Callable[[SignalRecord], SignalAction]] = {
    "execute-snapshot": _execute,
    "stop-snapshot": _stop,
    "pause-snapshot": lambda r: PauseSnapshot(r.id),
    "resume-snapshot": lambda r: ResumeSnapshot(r.id),
    "log": _log,
    "snapshot-window-open": lambda r: OpenWindow(r.id),
    "snapshot-window-close": lambda r: CloseWindow(r.id),
    "set-binlog-position": _set_binlog_position,
}


def parse_action(record: SignalRecord) -> SignalAction:
    parser = PARSERS.get(record.type)
    if parser is None:
        raise SignalRejected(record.id, f"unknown signal type '{record.type}'")
    return parser(record)
