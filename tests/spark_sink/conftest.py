"""Fixtures for the spark_sink tests: the session's Tansu broker and one local Spark session per worker.

Every test here that uses the `spark` fixture is in the xdist group "spark" (pytest_collection_modifyitems
below), so under `pytest -n N --dist loadgroup` one worker runs them all and only one in-process Spark JVM starts
(the mirror CLI tests start their own, in a child process, on any worker). With two in-process sessions (one
per group) at load 16 the live-connector tests failed ("Python worker failed to connect back"); one passed."""

from __future__ import annotations

import os
import sys
import uuid
from pathlib import Path
from typing import Iterator

import pytest


@pytest.fixture(scope="session")
def kafka_bootstrap(request: pytest.FixtureRequest) -> str:
    """A broker: $SPARK_SINK_BOOTSTRAP if set, else the session's Tansu (tests/conftest.py `broker`)."""
    if os.environ.get("SPARK_SINK_BOOTSTRAP"):
        return os.environ["SPARK_SINK_BOOTSTRAP"]
    return request.getfixturevalue("broker").bootstrap_servers


@pytest.fixture(scope="session")
def spark() -> Iterator[object]:
    pytest.importorskip("pyspark", reason="pyspark not installed (pip install .[spark])")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    from spark_sink.session import compiled_spark_home
    home = compiled_spark_home()  # as the mirror CLI: workers import the compiled pyspark (spark_sink/session.py)
    if home is not None:
        os.environ.setdefault("SPARK_HOME", str(home))
    from pyspark.sql import SparkSession
    session = (SparkSession.builder.master("local[2]").appName("spark_sink tests")
               # One shuffle partition: the tests' batches are tiny, so a second partition only doubles the tasks
               # of every shuffle stage (test_spark_golden + test_split_read: JVM 122.7 -> 109.2 CPU-s, 258 ->
               # 211 s). What more partitions change is covered where users get them: the mirror CLI tests run
               # its default (shuffle partitions = cores, test_mirror_cli.py) and 3 (test_failover_lake.py).
               .config("spark.sql.shuffle.partitions", "1")
               .config("spark.default.parallelism", "1")
               .config("spark.sql.session.timeZone", "UTC")
               .config("spark.ui.enabled", "false")
               .config("spark.driver.memory", "1g")
               .config("spark.sql.execution.arrow.pyspark.enabled", "true")
               # Interpreted expressions: the tests' batches are tiny, so compiling generated code per query costs
               # more than it saves (13 lake tests: JVM 74 -> 66 CPU-s, 106 -> 93 s). Results are the same by
               # Spark's contract; the mirror CLI and bench keep Spark's defaults.
               .config("spark.sql.codegen.wholeStage", "false")
               .config("spark.sql.codegen.factoryMode", "NO_CODEGEN")
               # Adaptive execution re-plans each query after its shuffles: for the tests' tiny batches that is pure
               # overhead (test_expressions + test_spark_golden + test_source_db: JVM 121 -> 104 CPU-s, same wall).
               .config("spark.sql.adaptive.enabled", "false")
               .getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    """The test's private directory (pytest's, so parallel workers never share one)."""
    return tmp_path


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

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)  # port 0: the OS picks a free one
    thread = threading.Thread(target=server.serve_forever, name="schema-registry", daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    thread.join(5)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests that use the session's Spark go to one worker; the others (the mirror CLI in a child process,
    the decoders without Spark) run on any, beside them.

    tryfirst: xdist's worker reads the xdist_group marks in its own pytest_collection_modifyitems. Hooks run last
    registered first, and this conftest is registered before xdist's worker plugin when it is an initial conftest
    (`pytest -n 2 --dist loadgroup tests/spark_sink`): xdist then saw no marks and each worker started its own
    Spark JVM. With `pytest tests` this conftest loads during collection, after xdist's plugin, and it worked."""
    here = Path(__file__).parent
    for item in items:
        if here in Path(item.fspath).parents and "spark" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.xdist_group("spark"))
