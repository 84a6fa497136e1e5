"""Module-wide TLS servers: MariaDB and MySQL 9 with certificates made here and require_secure_transport=ON."""
from __future__ import annotations

from typing import Iterator

import pytest

from tests.support.certs import TestPki
from tests.support.servers import DatabaseServer, MariaDBServer, MySQLServer


class NoBroker:
    bootstrap_servers = "127.0.0.1:9"  # validate never reaches Kafka


# One per worker for every module here: the files are only read, and the JKS stores take two JVM starts (~3 s).
@pytest.fixture(scope="session")
def pki(tmp_path_factory: pytest.TempPathFactory) -> TestPki:
    return TestPki.create(tmp_path_factory.mktemp("pki"))


@pytest.fixture(scope="module", params=["mariadb", "mysql"])
def tls_server(request: pytest.FixtureRequest, pki: TestPki,
               tmp_path_factory: pytest.TempPathFactory) -> Iterator[DatabaseServer]:
    served = tmp_path_factory.mktemp(f"served-{request.param}")
    pki.serve(served, "good")
    work = tmp_path_factory.mktemp(f"tls-{request.param}")
    if request.param == "mysql":
        server: DatabaseServer = MySQLServer(work, dist=request.getfixturevalue("mysql_distribution"),
                                             extra_options=pki.server_options(served))
    else:
        server = MariaDBServer(work, extra_options=pki.server_options(served))
    with server:
        server.served = served  # type: ignore[attr-defined]
        server.run_sql("CREATE DATABASE tls; CREATE TABLE tls.t (id INT PRIMARY KEY, v VARCHAR(20));"
                       "INSERT INTO tls.t VALUES (1, 'one'), (2, 'two');"
                       "CREATE USER 'x509'@'127.0.0.1' IDENTIFIED BY 'x509pw' REQUIRE X509;"
                       "GRANT SELECT, RELOAD, SHOW DATABASES, REPLICATION SLAVE, REPLICATION CLIENT ON *.* "
                       "TO 'x509'@'127.0.0.1';")
        yield server


def serve(server: DatabaseServer, pki: TestPki, name: str) -> None:
    pki.serve(server.served, name)  # type: ignore[attr-defined]
    server.run_sql("FLUSH SSL;" if isinstance(server, MariaDBServer) else "ALTER INSTANCE RELOAD TLS;")


