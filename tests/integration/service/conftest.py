from __future__ import annotations

import pytest

from tests.support.servers import MariaDBServer, MySQLServer, Profile


@pytest.fixture
def own_server(request, tmp_path):
    """A database server of the test's own (parametrize indirectly with "mariadb" or "mysql"), for tests
    that restart it, purge its binlogs or change its global settings."""
    if request.param == "mysql":
        server = MySQLServer(tmp_path / "db", profile=Profile.DEFAULTS,
                             dist=request.getfixturevalue("mysql_distribution"))
    else:
        server = MariaDBServer(tmp_path / "db", profile=Profile.DEFAULTS)
    with server:
        yield server
