"""Fixtures for the Docker-based tests: MySQL 8.4 and 8.0 (official images, with docker/'s my.cnf
and init SQL mounted exactly as compose.yaml mounts them) and Apache Kafka in KRaft mode.

Without a Docker engine these fixtures skip, saying where no engine answered. Servers that already
run can stand in for the containers (the style of tests/support: reuse one from an env var):
  BINLOG_CDC_CONTAINERS_MYSQL=host:port:user:password   one MySQL instead of the two images; the
                                                        fixture (re)loads docker/mysql/init/*.sql as
                                                        that user (it needs ALL ... WITH GRANT OPTION)
  BINLOG_CDC_CONTAINERS_KAFKA=host:port                 a broker instead of the Kafka container
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass

import pymysql
import pytest

from tests.containers.engine import engine_problem
from tests.containers.inventory import INIT_DIR, MY_CNF, load_inventory

MYSQL_IMAGES = ("mysql:8.4", "mysql:8.0")
MYSQL_ROOT_PASSWORD = "debezium"
EXTERNAL_MYSQL_ENV = "BINLOG_CDC_CONTAINERS_MYSQL"
EXTERNAL_KAFKA_ENV = "BINLOG_CDC_CONTAINERS_KAFKA"


@dataclass(frozen=True)
class MySQLEndpoint:
    label: str
    host: str
    port: int
    admin_user: str
    admin_password: str

    def connect(self, database: str | None = None) -> pymysql.Connection:
        return pymysql.connect(host=self.host, port=self.port, user=self.admin_user, password=self.admin_password,
                               database=database, autocommit=True, connect_timeout=10)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "mysql_server" in metafunc.fixturenames:
        params = ["external"] if os.environ.get(EXTERNAL_MYSQL_ENV) else list(MYSQL_IMAGES)
        metafunc.parametrize("mysql_server", params, indirect=True, scope="session")


@pytest.fixture(scope="session")
def docker_engine() -> None:
    problem = engine_problem()
    if problem:
        pytest.skip(problem)


@pytest.fixture(scope="session")
def kafka_bootstrap(request: pytest.FixtureRequest) -> Iterator[str]:
    external = os.environ.get(EXTERNAL_KAFKA_ENV)
    if external:
        yield external
        return
    request.getfixturevalue("docker_engine")
    from tests.containers.kafka_container import ApacheKafkaContainer  # noqa: PLC0415 - needs an engine

    container = ApacheKafkaContainer().start()
    try:
        yield container.bootstrap_servers()
    finally:
        container.stop()


@pytest.fixture(scope="session")
def mysql_server(request: pytest.FixtureRequest) -> Iterator[MySQLEndpoint]:
    if request.param == "external":
        host, port, user, password = os.environ[EXTERNAL_MYSQL_ENV].split(":", 3)
        endpoint = MySQLEndpoint("external", host, int(port), user, password)
        with endpoint.connect() as conn:
            load_inventory(conn)
        yield endpoint
        return
    request.getfixturevalue("docker_engine")
    from testcontainers.community.mysql import MySqlContainer  # noqa: PLC0415 - needs an engine

    # Mounted where compose.yaml mounts them, so these tests exercise the shipped files.
    container = (MySqlContainer(request.param, username="root", password=MYSQL_ROOT_PASSWORD, dbname="inventory")
                 .with_volume_mapping(str(MY_CNF), "/etc/mysql/conf.d/binlog-cdc.cnf", "ro")
                 .with_volume_mapping(str(INIT_DIR), "/docker-entrypoint-initdb.d", "ro"))
    container.start()
    try:
        yield MySQLEndpoint(request.param, container.get_container_host_ip(), int(container.get_exposed_port(3306)),
                            "root", MYSQL_ROOT_PASSWORD)
    finally:
        container.stop()
