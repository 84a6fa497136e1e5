"""use.nongraceful.disconnect: the binlog connection closes with SO_LINGER 0 (a TCP reset, no COM_QUIT), as
mysql-binlog-connector-java's setUseNonGracefulDisconnect; every other connection, and the binlog one without
the property, closes in order. Seen from a TCP forwarder between `binlog-cdc run` and a real MariaDB."""
from __future__ import annotations

import uuid

import pytest

from tests.conformance.config import write_properties
from tests.support.connector_config import connector_properties
from tests.support.connector_process import run_until_streaming
from tests.support.tcp_proxy import TcpProxy
from tests.support.waiting import wait_until

pytestmark = pytest.mark.timeout(240)


@pytest.mark.parametrize("nongraceful", ["true", "false"])
def test_the_binlog_connection_alone_ends_with_a_reset(nongraceful, mariadb, broker, unique_database, tmp_path):
    database = unique_database(mariadb)
    mariadb.run_sql("CREATE TABLE t (id INT PRIMARY KEY); INSERT INTO t VALUES (1);", database=database)
    with TcpProxy(mariadb.port) as proxy:
        props = connector_properties(tmp_path, mariadb, broker, database, "ng" + uuid.uuid4().hex[:8],
                                     use_nongraceful_disconnect=nongraceful)
        props["debezium.source.database.port"] = str(proxy.port)
        config = tmp_path / "c.properties"
        write_properties(config, props)
        run_until_streaming(config, tmp_path)
        # every connection the connector opened has ended by the time it exited; the forwarder saw each end
        wait_until(lambda: len(proxy.endings) == proxy.accepted, 30, "every connection's end",
                   state=lambda: (proxy.accepted, proxy.endings))
        assert proxy.endings.count("reset") == (1 if nongraceful == "true" else 0), proxy.endings
        assert proxy.endings.count("closed") >= 2  # the snapshot's, the checks', the binlog's ctl connection
