"""Settings of the database connection and of what is captured from it."""

from __future__ import annotations

from dataclasses import dataclass, field

from connector.config import modes
from connector.config.declared import prop
from connector.config.secret import Secret

__all__ = ["DatabaseSettings", "DatabaseSslSettings", "FilterSettings", "GtidSourceSettings"]


@dataclass(frozen=True)
class DatabaseSslSettings:
    """`database.ssl.*`: the mode, Debezium's stores, and PEM files as the alternative (binlog/tls.py)."""

    mode: modes.SecureConnectionMode = prop("database.ssl.mode")
    truststore: str | None = prop("database.ssl.truststore")
    truststore_password: Secret = Secret("")  # database.ssl.truststore.password, kept out of logs
    keystore: str | None = prop("database.ssl.keystore")
    keystore_password: Secret = Secret("")  # database.ssl.keystore.password
    ca: str | None = prop("database.ssl.ca")
    cert: str | None = prop("database.ssl.cert")
    key: str | None = prop("database.ssl.key")

    def problems(self) -> list[str]:
        out = []
        verify = self.mode in (modes.SecureConnectionMode.VERIFY_CA, modes.SecureConnectionMode.VERIFY_IDENTITY)
        if verify and not (self.truststore or self.ca):
            out.append(f"database.ssl.mode={self.mode.value} needs the CA that signed the server's certificate: set "
                       f"database.ssl.truststore (JKS/PKCS#12, with database.ssl.truststore.password) or "
                       f"database.ssl.ca (PEM)")
        for ours, theirs, ours_value, theirs_value in (
                ("database.ssl.ca", "database.ssl.truststore", self.ca, self.truststore),
                ("database.ssl.cert", "database.ssl.keystore", self.cert, self.keystore)):
            if ours_value and theirs_value:
                out.append(f"{ours} and {theirs} cannot both be set; keep one of them")
        if self.key and not self.cert:
            out.append("database.ssl.key needs database.ssl.cert (the certificate of that key)")
        return out


@dataclass(frozen=True)
class DatabaseSettings:
    hostname: str = prop("database.hostname", empty="")
    port: int = prop("database.port")
    user: str = prop("database.user", empty="")
    password: Secret = Secret("")  # database.password, kept out of logs
    server_id: int = prop("database.server.id", empty=0)
    ssl: DatabaseSslSettings = field(default_factory=DatabaseSslSettings)
    connect_timeout_ms: int = prop("connect.timeout.ms")
    keep_alive: bool = prop("connect.keep.alive")
    initial_statements: tuple[str, ...] = ()  # database.initial.statements, split at semicolons
    # the binlog connection's session net_read_timeout / net_write_timeout in seconds; 0 keeps the server's
    binlog_net_read_timeout_s: int = prop("binlog.net.read.timeout")
    binlog_net_write_timeout_s: int = prop("binlog.net.write.timeout")
    # use.nongraceful.disconnect: the binlog socket closes with SO_LINGER 0 (connector/binlog/reader.py)
    nongraceful_disconnect: bool = prop("use.nongraceful.disconnect")

    def binlog_session_statement(self) -> str | None:
        """The SET the binlog connection runs before its dump (mysql-binlog-connector-java's setNetReadTimeout /
        setNetWriteTimeout, which Debezium calls when the property is above 0)."""
        assignments = [f"{name}={value}" for name, value in (("net_read_timeout", self.binlog_net_read_timeout_s),
                                                             ("net_write_timeout", self.binlog_net_write_timeout_s))
                       if value > 0]
        return f"SET SESSION {', '.join(assignments)}" if assignments else None


@dataclass(frozen=True)
class FilterSettings:
    database_include: tuple[str, ...] = prop("database.include.list", empty=())
    database_exclude: tuple[str, ...] = prop("database.exclude.list", empty=())
    table_include: tuple[str, ...] = prop("table.include.list", empty=())
    table_exclude: tuple[str, ...] = prop("table.exclude.list", empty=())
    column_include: tuple[str, ...] = prop("column.include.list", empty=())
    column_exclude: tuple[str, ...] = prop("column.exclude.list", empty=())
    ignore_builtin: bool = prop("table.ignore.builtin")


@dataclass(frozen=True)
class GtidSourceSettings:
    """`gtid.source.includes` / `gtid.source.excludes` (anchored regexes) and `gtid.source.filter.dml.events`."""

    includes: tuple[str, ...] = prop("gtid.source.includes", empty=())
    excludes: tuple[str, ...] = prop("gtid.source.excludes", empty=())
    filter_dml: bool = prop("gtid.source.filter.dml.events", empty=False)
