"""Reading the store formats behind `connector.config.keystores`: pyjks for JKS/JCEKS, `cryptography` for PKCS#12
and PEM. The format is taken from the file's first bytes, not its name."""

from __future__ import annotations

from pathlib import Path

import jks
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.serialization import pkcs12

from connector.config.keystores import Identity, KeystoreError

__all__ = ["identity", "trusted_certs"]

_JKS_MAGIC = b"\xfe\xed\xfe\xed"
_JCEKS_MAGIC = b"\xce\xce\xce\xce"
_PEM_MARK = b"-----BEGIN"


def _read(path: str, what: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise KeystoreError(f"{what} {path!r} cannot be read: {exc.strerror}") from None


def _is_java_store(data: bytes) -> bool:
    return data[:4] in (_JKS_MAGIC, _JCEKS_MAGIC)


def _cert_pem(der: bytes) -> str:
    return x509.load_der_x509_certificate(der).public_bytes(serialization.Encoding.PEM).decode("ascii")


def _load_java(data: bytes, path: str, password: str | None, what: str) -> jks.KeyStore:
    try:
        # Without a password (allowed for truststores, as in Java) the integrity check is skipped.
        return jks.KeyStore.loads(data, password or None, try_decrypt_keys=False)
    except jks.util.KeystoreSignatureException:
        raise KeystoreError(f"{what} {path!r}: wrong password (the store's integrity check failed)") from None
    except (jks.util.KeystoreException, ValueError) as exc:
        raise KeystoreError(f"{what} {path!r} is not a readable JKS/JCEKS store: {exc}") from None


def _load_pkcs12(data: bytes, path: str, password: str | None, what: str) -> pkcs12.PKCS12KeyAndCertificates:
    try:
        return pkcs12.load_pkcs12(data, password.encode() if password else None)
    except ValueError:
        raise KeystoreError(f"{what} {path!r}: not a PKCS#12/JKS store, or the password is wrong") from None


def trusted_certs(path: str, password: str | None = None, what: str = "truststore") -> str:
    """Every certificate of a truststore (JKS, JCEKS, PKCS#12 or PEM) as concatenated PEM."""
    data = _read(path, what)
    pems: list[str] = []
    if data.lstrip().startswith(_PEM_MARK):
        try:
            certs = x509.load_pem_x509_certificates(data)
        except ValueError:
            raise KeystoreError(f"{what} {path!r} holds no readable PEM certificate") from None
        pems = [c.public_bytes(serialization.Encoding.PEM).decode("ascii") for c in certs]
    elif _is_java_store(data):
        store = _load_java(data, path, password, what)
        pems = [_cert_pem(entry.cert) for entry in store.certs.values()]
        # A keystore used as truststore: its key entries' chains are trusted too (as Java's TrustManager does).
        pems += [_cert_pem(der) for entry in store.private_keys.values() for _, der in entry.cert_chain]
    else:
        bundle = _load_pkcs12(data, path, password, what)
        certs = [c.certificate for c in bundle.additional_certs]
        if bundle.cert is not None:
            certs.append(bundle.cert.certificate)
        pems = [c.public_bytes(serialization.Encoding.PEM).decode("ascii") for c in certs]
    if not pems:
        raise KeystoreError(f"{what} {path!r} holds no certificate: import the CA that signed the server's "
                            f"certificate (keytool -importcert -alias ca -file ca.pem -keystore {path})")
    return "".join(pems)


def identity(path: str, password: str | None, what: str = "keystore") -> Identity:
    """The one private key entry of a keystore (JKS, JCEKS or PKCS#12) with its certificate chain.

    The key password is the store password, as Debezium and the Kafka clients assume."""
    data = _read(path, what)
    if _is_java_store(data):
        store = _load_java(data, path, password, what)
        if len(store.private_keys) != 1:
            raise KeystoreError(f"{what} {path!r} holds {len(store.private_keys)} private keys; "
                                f"it must hold exactly one (the client certificate's)")
        entry = next(iter(store.private_keys.values()))
        try:
            entry.decrypt(password or "")
        except jks.util.DecryptionFailureException:
            raise KeystoreError(f"{what} {path!r}: the key's password differs from the store's; "
                                f"give both the same password (keytool -keypasswd)") from None
        try:
            key = serialization.load_der_private_key(entry.pkey_pkcs8, password=None)
        except (ValueError, TypeError) as exc:
            raise KeystoreError(f"{what} {path!r}: its private key cannot be used ({exc})") from None
        chain = "".join(_cert_pem(der) for _, der in entry.cert_chain)
    else:
        bundle = _load_pkcs12(data, path, password, what)
        if bundle.key is None or bundle.cert is None:
            raise KeystoreError(f"{what} {path!r} holds no private key with its certificate")
        key = bundle.key
        chain = "".join(c.public_bytes(serialization.Encoding.PEM).decode("ascii")
                        for c in [bundle.cert.certificate, *(a.certificate for a in bundle.additional_certs)])
    key_pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption()).decode("ascii")
    return Identity(chain, key_pem)

