"""One way to build a client-side `ssl.SSLContext` from what the stores hold: the database connections and the
Schema Registry client share it, so a truststore or keystore means the same thing for both."""

from __future__ import annotations

import os
import ssl
import tempfile

from connector.config.keystores import Identity

__all__ = ["client_context"]


def client_context(verify: bool, check_host: bool, cadata: str | None, identity: Identity | None,
                   cert_file: str | None = None, key_file: str | None = None) -> ssl.SSLContext:
    """`verify` checks the peer's chain against `cadata` (or the system CAs when None); `check_host` its name."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = check_host
    ctx.verify_mode = ssl.CERT_REQUIRED if verify else ssl.CERT_NONE
    if cadata:
        ctx.load_verify_locations(cadata=cadata)
    elif verify:
        ctx.load_default_certs()
    if cert_file:
        ctx.load_cert_chain(cert_file, key_file)
    elif identity is not None:
        _load_identity(ctx, identity)
    return ctx


def _load_identity(ctx: ssl.SSLContext, identity: Identity) -> None:
    """`ssl` loads a key only from a file: write it to a private (0700) directory, load it, delete it."""
    with tempfile.TemporaryDirectory(prefix="binlog-cdc-tls-") as tmp:  # created 0700 by mkdtemp
        path = os.path.join(tmp, "identity.pem")
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as out:
            out.write(identity.key_pem + identity.cert_chain_pem)
        ctx.load_cert_chain(path)
