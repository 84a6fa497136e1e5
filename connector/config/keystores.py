"""Java key and trust stores (JKS, JCEKS, PKCS#12) and PEM files, read into PEM text.

Debezium users name a truststore and a keystore with their passwords (`database.ssl.truststore`,
`ssl.truststore.location`, ...). Python's `ssl` and librdkafka want PEM, so every store is read here
once, at start, by well-kept libraries: pyjks for JKS/JCEKS, `cryptography` for PKCS#12 and PEM.
The format is taken from the file's first bytes, not its name (keytool writes PKCS#12 into `.jks`
files since Java 9). Failures are `KeystoreError`s that name the file and what to check; passwords
never appear in them.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Identity", "KeystoreError", "read_identity", "read_trusted_certs"]


class KeystoreError(ValueError):
    """A store that cannot be read: missing, wrong password, wrong kind of entries."""


@dataclass(frozen=True, repr=False)
class Identity:
    """A client certificate chain and its unencrypted private key, both PEM. Never printed."""

    cert_chain_pem: str
    key_pem: str


# The readers import pyjks and `cryptography` (~0.2 s of every start) on first use: only TLS set-ups need them.
def read_trusted_certs(path: str, password: str | None = None, what: str = "truststore") -> str:
    """Every certificate of a truststore (JKS, JCEKS, PKCS#12 or PEM) as concatenated PEM."""
    from connector.config import keystore_formats
    return keystore_formats.trusted_certs(path, password, what)


def read_identity(path: str, password: str | None, what: str = "keystore") -> Identity:
    """The one private key entry of a keystore (JKS, JCEKS or PKCS#12) with its certificate chain; the key
    password is the store password, as Debezium and the Kafka clients assume."""
    from connector.config import keystore_formats
    return keystore_formats.identity(path, password, what)
