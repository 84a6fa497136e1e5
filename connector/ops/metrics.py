"""Debezium's streaming metrics on a Prometheus endpoint, plus `/health` for orchestrators.

The streaming loop updates plain attributes of `StreamingStats` (no locks, no per-event Prometheus calls:
it is the hot path); a custom collector reads them when Prometheus scrapes. Metric names are Debezium's
MBean attribute names (`debezium.mysql:type=connector-metrics,context=streaming,server=<prefix>`) under
`debezium_mysql_streaming_`, labelled with `server`, so dashboards keyed on those names carry over. The
registry is our own, never prometheus_client's global one (two daemons in one process must not collide).

`/health` answers 200 `{"status": "UP", ...}` while the connector runs and its binlog connection is up or
was lost less than `down_after_s` ago (reconnects with backoff are normal), else 503 `DOWN`. With `ha.enabled`
it also says who is active (`role`: standby, active, stepped-down; `instance`): a waiting standby is UP.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable, Iterator

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import GaugeMetricFamily, InfoMetricFamily
from prometheus_client.registry import Collector

from connector.ha.state import HaRole, HaState

log = logging.getLogger(__name__)

PREFIX = "debezium_mysql_streaming_"


@dataclass
class StreamingStats:
    """What the metrics show; written by the streaming thread only."""

    phase: str = "starting"
    connected: bool = False
    disconnected_since: float | None = field(default_factory=time.monotonic)
    binlog_filename: str = ""
    binlog_position: int = 0
    gtid_set: str = ""
    gtid_mode: bool = False
    last_event_ts_ms: int = 0  # source time of the newest binlog event
    last_event_seen_ms: int = 0  # wall clock when it was read
    ms_behind_source: int = -1
    binlog_events_seen: int = 0
    committed_transactions: int = 0
    disconnects: int = 0
    heartbeats_sent: int = 0
    # Beyond Debezium: the binlog purge estimate (seconds until the stored position's file expires; -1 unknown).
    purge_seconds_left: float = -1.0
    purge_position_available: bool = True

    def event(self, file: str, next_pos: int, ts_sec: int, now_ms: int, events: int = 1) -> None:
        """`events` binlog events were read, this one the last. `ts_sec` is its source time, 0 when it has none
        that tells the lag: as Debezium's BinlogStreamingChangeEventSource.onEvent, the lag is now minus the time of
        the last event read (a binlog event's time is its statement's, so a change written with an old
        `SET timestamp` shows as old)."""
        self.binlog_filename = file
        self.binlog_position = next_pos
        self.binlog_events_seen += events
        if ts_sec:
            self.last_event_ts_ms = ts_sec * 1000
            self.last_event_seen_ms = now_ms
            self.ms_behind_source = max(0, now_ms - self.last_event_ts_ms)

    def caught_up(self) -> None:
        """A server heartbeat: the server sends one only when it has sent everything, so the lag is 0 (Debezium
        sets 0 on HEARTBEAT too). Without it a caught-up connector would keep the age of the last event it read,
        which grows for as long as nothing is written."""
        self.ms_behind_source = 0

    def set_connected(self, connected: bool) -> None:
        if connected:
            self.disconnected_since = None
        elif self.connected or self.disconnected_since is None:
            self.disconnected_since = time.monotonic()
        self.connected = connected


class StreamingCollector(Collector):
    """Renders `StreamingStats` (and the dispatcher's counters) at scrape time."""

    def __init__(self, server: str, stats: StreamingStats, data_events: Callable[[], int],
                 records_sent: Callable[[], int], records_acked: Callable[[], int],
                 ddl_fallbacks: Callable[[], int] = lambda: 0, tags: tuple[tuple[str, str], ...] = (),
                 ha: HaState | None = None) -> None:
        # custom.metric.tags follow `server` as Debezium's MBean name puts them after it; a `server` tag replaces
        # the value, as Debezium's LinkedHashMap.putAll does
        labels = {"server": server, **dict(tags)}
        self._label_names = list(labels)
        self._label_values = list(labels.values())
        self._ha = ha
        self._stats = stats
        self._data_events = data_events
        self._sent = records_sent
        self._acked = records_acked
        self._ddl_fallbacks = ddl_fallbacks

    def _gauge(self, name: str, doc: str, value: float) -> GaugeMetricFamily:
        g = GaugeMetricFamily(PREFIX + name, doc, labels=self._label_names)
        g.add_metric(self._label_values, value)
        return g

    def _counter(self, name: str, doc: str, value: float) -> GaugeMetricFamily:
        # Exposed as gauges, as the JMX exporter exposes Debezium's MBean counters: a Prometheus counter would
        # add `_total` to the name, and dashboards keyed on Debezium's names would not find it.
        return self._gauge(name, doc, value)

    def collect(self) -> Iterator:
        s = self._stats
        now_ms = time.time_ns() // 1_000_000
        yield self._gauge("Connected", "1 while the binlog client is connected", 1 if s.connected else 0)
        yield self._gauge("MilliSecondsBehindSource", "Now minus the source time of the last binlog event read; "
                          "0 once the server has nothing more to send",
                          s.ms_behind_source)
        yield self._gauge("MilliSecondsSinceLastEvent", "Time since the last binlog event was read",
                          now_ms - s.last_event_seen_ms if s.last_event_seen_ms else -1)
        yield self._counter("TotalNumberOfEventsSeen", "Change events (create/update/delete/read) emitted",
                            self._data_events())
        yield self._counter("NumberOfCommittedTransactions", "Transactions committed in the binlog",
                            s.committed_transactions)
        yield self._counter("NumberOfDisconnects", "Binlog connection losses", s.disconnects)
        yield self._gauge("BinlogPosition", "Position of the next binlog event to read", s.binlog_position)
        yield self._gauge("IsGtidModeEnabled", "1 if the server has GTIDs", 1 if s.gtid_mode else 0)
        info = InfoMetricFamily(PREFIX + "Binlog", "Binlog file and GTID set read so far",
                                labels=self._label_names)
        info.add_metric(self._label_values, {"BinlogFilename": s.binlog_filename, "GtidSet": s.gtid_set})
        yield info
        yield self._counter("BinlogEventsRead", "Binlog events read (binlog-cdc)", s.binlog_events_seen)
        yield self._counter("HeartbeatsSent", "Heartbeat records sent (binlog-cdc)", s.heartbeats_sent)
        yield self._counter("RecordsSent", "Kafka records produced (binlog-cdc)", self._sent())
        yield self._counter("RecordsAcked", "Kafka records acknowledged (binlog-cdc)", self._acked())
        yield self._counter("DdlFallbacks", "DDL statements recorded from SHOW CREATE TABLE or with a column default "
                            "dropped because the parsed shape could not be used (binlog-cdc)", self._ddl_fallbacks())
        yield self._gauge("BinlogPurgeSecondsLeft", "Estimated seconds before the stored binlog position is purged "
                          "by binlog expiry; -1 unknown or no expiry (binlog-cdc)", s.purge_seconds_left)
        yield self._gauge("BinlogPositionAvailable", "0 if the stored position was purged (binlog-cdc)",
                          1 if s.purge_position_available else 0)
        if self._ha is not None:
            yield from self._ha_metrics(self._ha)

    def _ha_metrics(self, ha: HaState) -> Iterator:
        active = GaugeMetricFamily(PREFIX + "HaActive", "1 while this instance holds the HA lease and writes, 0 as "
                                   "a standby or after stepping down (binlog-cdc)",
                                   labels=[*self._label_names, "instance"])
        active.add_metric([*self._label_values, ha.instance_id], 1 if ha.role == HaRole.ACTIVE else 0)
        yield active
        info = InfoMetricFamily(PREFIX + "Ha", "This instance's HA role (binlog-cdc)", labels=self._label_names)
        info.add_metric(self._label_values, {"instance": ha.instance_id, "role": str(ha.role)})
        yield info


def health(stats: StreamingStats, down_after_s: float, ha: HaState | None = None) -> tuple[int, dict]:
    body = {"status": "UP", "phase": stats.phase, "connected": stats.connected,
            "binlog": f"{stats.binlog_filename}:{stats.binlog_position}"}
    if ha is not None:
        body["role"], body["instance"] = str(ha.role), ha.instance_id
    down = stats.phase in ("stopped", "failed") or (
        stats.phase == "streaming" and not stats.connected and stats.disconnected_since is not None
        and time.monotonic() - stats.disconnected_since > down_after_s)
    if down:
        body["status"] = "DOWN"
        return 503, body
    return 200, body


class MetricsServer:
    """`/metrics` (Prometheus text format) and `/health` (JSON) on a daemon thread."""

    def __init__(self, host: str, port: int, registry: CollectorRegistry, stats: StreamingStats,
                 down_after_s: float = 60.0, ha: HaState | None = None) -> None:
        registry_, stats_ = registry, stats

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                path = self.path.split("?", 1)[0]
                if path == "/metrics":
                    self._reply(200, generate_latest(registry_), "text/plain; version=0.0.4; charset=utf-8")
                elif path in ("/health", "/q/health"):
                    code, body = health(stats_, down_after_s, ha)
                    self._reply(code, json.dumps(body).encode(), "application/json")
                else:
                    self._reply(404, b"not found\n", "text/plain")

            def _reply(self, code: int, body: bytes, ctype: str) -> None:
                self.send_response(code)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:  # noqa: A002
                pass  # scrapes every few seconds would flood the log

        self._server = ThreadingHTTPServer((host, port), Handler)
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, name="metrics-http", daemon=True)

    def start(self) -> "MetricsServer":
        self._thread.start()
        log.info("metrics on http://%s:%d/metrics, health on /health", *self._server.server_address[:2])
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


def build_registry(collector: Collector) -> CollectorRegistry:
    registry = CollectorRegistry(auto_describe=False)
    registry.register(collector)
    return registry
