"""Real servers for tests, each in a private directory on a free loopback port.

    with MariaDBServer(tmp / "maria", profile="reference") as db, TansuBroker(tmp / "kafka") as kafka:
        db.run_sql(open("workload.sql").read())          # whole SQL text through the `mariadb` client
        db.query("SELECT COUNT(*) FROM t", database="x")  # PyMySQL, root over the socket
        db.binlog_position()                              # ("mariadb-bin.000001", 6199)

Exiting the `with` (or stop()) ends the process; an atexit hook catches crashed sessions.
"""
from tests.support.dbserver import DBZ_PASSWORD, DBZ_USER, DatabaseServer, Profile, ServerError
from tests.support.mariadb import MariaDBServer
from tests.support.mysql import MySQLServer, mysql_dist
from tests.support.tansu import TansuBroker

__all__ = ["DBZ_PASSWORD", "DBZ_USER", "DatabaseServer", "MariaDBServer", "MySQLServer", "Profile",
           "ServerError", "TansuBroker", "mysql_dist"]
