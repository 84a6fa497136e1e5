"""A MariaDB replica of a test server, replicating by GTID, with a binlog base name of its own (replica-bin), as the
failover tests need: after a failover the connector reads a server whose binlog files and positions mean nothing
on the other one."""
from __future__ import annotations

from tests.support.servers import MariaDBServer

__all__ = ["MariaDBReplica", "gtid_pos", "start_replication"]


class MariaDBReplica(MariaDBServer):
    """A MariaDB replica: its own binlog base name, server_id 2, replicated transactions logged."""

    binlog_basename = "replica-bin"

    def _write_cnf(self) -> None:
        super()._write_cnf()
        text = self.cnf.read_text().replace("server_id=1\n", "server_id=2\n")
        self.cnf.write_text(text + "log_slave_updates=ON\ngtid_strict_mode=ON\n")


def gtid_pos(server: MariaDBServer) -> str:
    return str(server.query("SELECT @@GLOBAL.gtid_binlog_pos")[0][0])


def start_replication(source: MariaDBServer, replica: MariaDBServer) -> None:
    """`replica` replicates `source` by GTID (MASTER_USE_GTID=slave_pos) from the source's current position."""
    # Each server created its own users at start-up; the replica starts from the source's current position.
    source.run_sql("SET GLOBAL gtid_strict_mode = ON")
    replica.run_sql(
        "STOP SLAVE; RESET SLAVE ALL; RESET MASTER; "
        f"SET GLOBAL gtid_slave_pos = '{gtid_pos(source)}'; "
        f"CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT={source.port}, MASTER_USER='{source.user}', "
        f"MASTER_PASSWORD='{source.password}', MASTER_USE_GTID=slave_pos; START SLAVE")
