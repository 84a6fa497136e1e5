"""Session-wide real servers and a per-test database.

Fixtures:
* `mariadb`  - MariaDB 10.11, `defaults` profile (what users run), one per session;
* `mysql`    - Oracle MySQL 9 from Debian sid (scripts/fetch_mysql.py), one per session.
               Skips with the reason only when the download is impossible; under CI=true
               that is an error instead, because CI must test MySQL;
* `broker`   - a Tansu Kafka-protocol broker, one per session;
* `unique_database` - factory: `unique_database(server, ddl="name")` creates a database
               named after the test, loads tests/fixtures/ddl/<name>.sql into it if given,
               and drops it after the test.
Every server runs in pytest's temp directory on an OS-assigned port and is stopped at the
end of the session; nothing depends on servers left running.

Long tests go first (`slow`, and the xdist groups such as Spark's): under `pytest -n N` a
several-minute test that starts last would otherwise run alone at the end while the other
workers idle.
"""
from __future__ import annotations

import os
import re
import tempfile
import uuid
from pathlib import Path
from typing import Callable, Iterator

import pytest

from tests.support.dbserver import disk_note
from tests.support.servers import DatabaseServer, MariaDBServer, MySQLServer, Profile, TansuBroker, mysql_dist

FIXTURES = Path(__file__).parent / "fixtures"

# Every JVM the tests start (the session's Spark, the mirror CLI's) lives for seconds to minutes: the C2 compiler
# costs more CPU than it saves there (test_expressions: 66 -> 34 CPU-seconds of the JVM, same wall time). Set in
# the environment, so the CLI a test runs keeps its own arguments; JDK_JAVA_OPTIONS is read by the `java`
# launcher only (spark-submit's), not by other Java tools.
os.environ.setdefault("JDK_JAVA_OPTIONS", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


def pytest_report_header() -> str:
    # The suite needs ~2 GB in the temp directory at its peak (servers' data directories are freed as they stop);
    # a CI run on a nearly full disk failed every test from the first server that could not start.
    return "disk: " + disk_note(Path(tempfile.gettempdir()))


@pytest.hookimpl(trylast=True)  # after the directories' conftests added their xdist_group marks
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    def long_first(item: pytest.Item) -> int:
        return 0 if item.get_closest_marker("slow") or item.get_closest_marker("xdist_group") else 1

    items.sort(key=long_first)  # stable: the order within each class is kept


@pytest.fixture(scope="session")
def mariadb(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MariaDBServer]:
    with MariaDBServer(tmp_path_factory.mktemp("mariadb"), profile=Profile.DEFAULTS) as server:
        yield server


@pytest.fixture(scope="session")
def mysql_distribution():
    """The unpacked sid MySQL, or a skip (a failure in CI) saying why it is not there."""
    try:
        return mysql_dist()
    except Exception as e:  # noqa: BLE001 - FetchError, OSError, CalledProcessError: all mean "no MySQL"
        reason = f"Oracle MySQL from Debian sid unavailable ({type(e).__name__}: {str(e)[:500]})"
        if in_ci():
            pytest.fail(reason + " - CI must run the MySQL tests", pytrace=False)
        pytest.skip(reason)


@pytest.fixture(scope="session")
def mysql(tmp_path_factory: pytest.TempPathFactory, mysql_distribution) -> Iterator[MySQLServer]:
    with MySQLServer(tmp_path_factory.mktemp("mysql"), profile=Profile.DEFAULTS, dist=mysql_distribution) as server:
        yield server


@pytest.fixture(scope="session")
def broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TansuBroker]:
    with TansuBroker(tmp_path_factory.mktemp("tansu")) as b:
        yield b


@pytest.fixture
def unique_database(request: pytest.FixtureRequest) -> Iterator[Callable[..., str]]:
    created: list[tuple[DatabaseServer, str]] = []

    def make(server: DatabaseServer, ddl: str | None = None) -> str:
        base = re.sub(r"[^a-z0-9_]", "_", request.node.name.lower())[:40]
        name = f"t_{base}_{uuid.uuid4().hex[:6]}"
        server.run_sql(f"CREATE DATABASE `{name}`;")
        created.append((server, name))
        if ddl is not None:
            server.run_sql((FIXTURES / "ddl" / f"{ddl}.sql").read_text(encoding="utf-8"), database=name,
                           what=f"fixtures/ddl/{ddl}.sql")
        return name

    yield make
    for server, name in created:
        if server.running:
            server.run_sql(f"DROP DATABASE IF EXISTS `{name}`;")
