"""TLS to the database, `database.ssl.mode` as Debezium applies it, for every connection the connector opens.

One `DatabaseTls` is built at start and carried by `ConnectionParams`, so the binlog stream, its control
connection, the snapshot readers and the short-lived control connections all get the same settings:

    disabled         plain TCP, even when the server offers TLS
    preferred        TLS when the server offers it, no certificate check; plain otherwise (Debezium's default)
    required         TLS or no connection; no certificate check
    verify_ca        required + the server certificate must chain to the configured CA (any host name)
    verify_identity  verify_ca + the certificate must name the host in database.hostname

PyMySQL does the handshake; this module only builds its `ssl.SSLContext`. With a client certificate
(keystore or PEM) TLS is always attempted, so `preferred` then behaves like `required` (a plain
connection could not present it anyway).
"""

from __future__ import annotations

import functools
import ssl
from dataclasses import dataclass
from typing import Any, Callable

import pymysql

from connector.config.keystores import Identity, KeystoreError, read_identity, read_trusted_certs
from connector.config.tls_context import client_context
from connector.config.modes import SecureConnectionMode as Mode
from connector.config.settings import DatabaseSslSettings
from connector.errors import ConfigError, ServerSetupError

__all__ = ["DatabaseTls", "TlsConnection", "TlsHandshakeError", "database_tls", "handshake_failure", "login_hint"]

# CR_SSL_CONNECTION_ERROR, and ER_SECURE_TRANSPORT_REQUIRED (require_secure_transport=ON, plain client).
_CR_SSL_CONNECTION_ERROR = 2026
_ER_SECURE_TRANSPORT_REQUIRED = 3159


class TlsHandshakeError(ServerSetupError):
    """The server and `database.ssl.*` disagree: retrying cannot help until one of them changes."""


class TlsConnection(pymysql.connections.Connection):
    """A PyMySQL connection whose preferred mode (TLS if offered, no certificate check) uses `offered_context`.

    PyMySQL builds a new default context for each preferred-mode connection and loads the system's CA bundle into
    it (~120 ms of CPU) for a check that mode never makes; the connector opens several connections per start and
    one per reconnect."""

    def __init__(self, *, offered_context: ssl.SSLContext | None = None, **kwargs: Any) -> None:
        self._offered_context = offered_context
        super().__init__(**kwargs)

    def _create_ssl_ctx(self, sslp: Any) -> ssl.SSLContext:
        if not sslp and self._offered_context is not None:
            return self._offered_context
        return super()._create_ssl_ctx(sslp)


@dataclass(frozen=True, repr=False)
class DatabaseTls:
    mode: Mode = Mode.PREFERRED
    context: ssl.SSLContext | None = None  # None: PyMySQL's own preferred mode, or disabled

    @functools.cached_property
    def offered_context(self) -> ssl.SSLContext | None:
        """Preferred mode without a client identity: the context offered TLS uses, built once (no CA bundle: that
        mode checks no certificate). None in every other case."""
        if self.mode is Mode.PREFERRED and self.context is None:
            return client_context(False, False, None, None)
        return None

    def pymysql_kwargs(self) -> dict[str, Any]:
        if self.mode is Mode.DISABLED:
            return {"ssl_disabled": True}
        if self.context is None:
            return {}  # PyMySQL's default is preferred: TLS if offered, no certificate check
        return {"ssl": self.context}

    def connection_class(self, base: type[TlsConnection] = TlsConnection
                         ) -> Callable[..., pymysql.connections.Connection]:
        """What builds a connection from `pymysql_kwargs()` (also pmr's `pymysql_wrapper`)."""
        return functools.partial(base, offered_context=self.offered_context)

    def __repr__(self) -> str:
        return f"DatabaseTls(mode={self.mode.value})"


def database_tls(cfg: DatabaseSslSettings) -> DatabaseTls:
    """The TLS settings of every database connection; a `ConfigError` naming each unusable store or file."""
    problems: list[str] = []
    cadata: str | None = None
    identity: Identity | None = None
    try:
        if cfg.truststore:
            cadata = read_trusted_certs(cfg.truststore, cfg.truststore_password.reveal(), "database.ssl.truststore")
        elif cfg.ca:
            cadata = read_trusted_certs(cfg.ca, None, "database.ssl.ca")
    except KeystoreError as exc:
        problems.append(str(exc))
    try:
        if cfg.keystore:
            identity = read_identity(cfg.keystore, cfg.keystore_password.reveal(), "database.ssl.keystore")
    except KeystoreError as exc:
        problems.append(str(exc))
    if problems:
        raise ConfigError(problems)
    if cfg.mode is Mode.DISABLED:
        return DatabaseTls(cfg.mode)
    has_identity = identity is not None or cfg.cert is not None
    if cfg.mode is Mode.PREFERRED and not has_identity:
        return DatabaseTls(cfg.mode)
    verify = cfg.mode in (Mode.VERIFY_CA, Mode.VERIFY_IDENTITY)
    try:
        ctx = client_context(verify, cfg.mode is Mode.VERIFY_IDENTITY, cadata if verify else None, identity,
                             cfg.cert, cfg.key)
    except (ssl.SSLError, OSError) as exc:
        what = "database.ssl.cert/database.ssl.key" if cfg.cert else "database.ssl.keystore/database.ssl.truststore"
        raise ConfigError([f"{what}: cannot be loaded for TLS ({getattr(exc, 'strerror', None) or exc})"]) from None
    return DatabaseTls(cfg.mode, ctx)


_FIXES = {
    Mode.DISABLED: "the server requires TLS (require_secure_transport=ON): set database.ssl.mode=required or "
                   "stricter",
    Mode.PREFERRED: "the server requires TLS: check that it has TLS enabled (have_ssl=YES)",
    Mode.REQUIRED: "the server does not offer TLS: enable TLS on the server (ssl_cert/ssl_key) or set "
                   "database.ssl.mode=preferred",
    Mode.VERIFY_CA: "set database.ssl.truststore (or database.ssl.ca) to the CA that signed the server's certificate",
    Mode.VERIFY_IDENTITY: "set database.ssl.truststore (or database.ssl.ca) to the CA that signed the server's "
                          "certificate, and database.hostname to a name the certificate lists (its subjectAltName)",
}


def handshake_failure(exc: BaseException, host: str, port: int, mode: Mode) -> TlsHandshakeError | None:
    """A one-line terminal error when `exc` is a refused TLS handshake (or a server refusing plain TCP);
    None for any other connection failure."""
    if not isinstance(exc, pymysql.err.OperationalError) or not exc.args:
        return None
    code = exc.args[0]
    cause = getattr(exc, "original_exception", None)
    if isinstance(cause, ssl.SSLCertVerificationError):
        reason = f"certificate rejected: {cause.verify_message}"
    elif isinstance(cause, ssl.SSLError):
        reason = f"TLS handshake failed: {cause.reason or cause}"
    elif code in (_CR_SSL_CONNECTION_ERROR, _ER_SECURE_TRANSPORT_REQUIRED):
        reason = str(exc.args[-1]).rstrip(".")
    else:
        return None
    if code == _ER_SECURE_TRANSPORT_REQUIRED:
        fix = _FIXES[Mode.DISABLED]
    elif isinstance(cause, ssl.SSLError) and not isinstance(cause, ssl.SSLCertVerificationError):
        fix = "check the server's TLS setup and database.ssl.keystore (the client certificate), if it asks for one"
    else:
        fix = _FIXES[mode]
    return TlsHandshakeError(f"TLS to {host}:{port} refused with database.ssl.mode={mode.value}: {reason}", fix=fix)


def login_hint(mode: Mode) -> str:
    """MariaDB answers a plain client under require_secure_transport=ON with a plain 'Access denied'."""
    if mode is Mode.DISABLED:
        return ("; with database.ssl.mode=disabled a server that requires TLS (require_secure_transport=ON) also "
                "refuses the login: then set database.ssl.mode=required or stricter")
    return ""
