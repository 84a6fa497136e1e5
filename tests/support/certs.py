"""Certificates made in the test: two CAs, server certificates for the right and a wrong host, a client
certificate; written as PEM, PKCS#12 and (by the JDK's keytool, as users make them) JKS.

    pki = TestPki.create(tmp_path)
    pki.server_pem("good")        # (cert, key) paths for a server certificate naming 127.0.0.1/localhost
    pki.jks_truststore            # JKS with the first CA, password pki.store_password
"""
from __future__ import annotations

import datetime as dt
import ipaddress
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.hazmat.primitives.serialization import pkcs12
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

STORE_PASSWORD = "canary-store-pw-7f3a"


def _key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def _name(cn: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])


def _cert(subject: str, key: rsa.RSAPrivateKey, issuer: tuple[x509.Certificate, rsa.RSAPrivateKey] | None,
          *, ca: bool = False, hosts: tuple[str, ...] = (), usage: x509.ObjectIdentifier | None = None
          ) -> x509.Certificate:
    now = dt.datetime.now(dt.timezone.utc)
    issuer_name = issuer[0].subject if issuer else _name(subject)
    builder = (x509.CertificateBuilder().subject_name(_name(subject)).issuer_name(issuer_name)
               .public_key(key.public_key()).serial_number(x509.random_serial_number())
               .not_valid_before(now - dt.timedelta(minutes=5)).not_valid_after(now + dt.timedelta(days=2))
               .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True))
    if ca:
        builder = builder.add_extension(x509.KeyUsage(True, False, False, False, False, True, True, False, False),
                                        critical=True)
        builder = builder.add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
    if hosts:
        names: list[x509.GeneralName] = []
        for h in hosts:
            try:
                names.append(x509.IPAddress(ipaddress.ip_address(h)))
            except ValueError:
                names.append(x509.DNSName(h))
        builder = builder.add_extension(x509.SubjectAlternativeName(names), critical=False)
    if usage is not None:
        builder = builder.add_extension(x509.ExtendedKeyUsage([usage]), critical=False)
    if issuer:
        builder = builder.add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer[1].public_key()), critical=False)
    return builder.sign(issuer[1] if issuer else key, hashes.SHA256())


def _pem(cert: x509.Certificate) -> bytes:
    return cert.public_bytes(serialization.Encoding.PEM)


def _key_pem(key: rsa.RSAPrivateKey) -> bytes:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL,
                             serialization.NoEncryption())


@dataclass(frozen=True)
class TestPki:
    dir: Path
    store_password: str = STORE_PASSWORD

    __test__ = False  # not a pytest class

    @classmethod
    def create(cls, directory: Path, java_stores: bool = True) -> "TestPki":
        directory.mkdir(parents=True, exist_ok=True)
        pki = cls(directory)
        ca_key, other_ca_key = _key(), _key()
        ca = _cert("binlog-cdc test CA", ca_key, None, ca=True)
        other_ca = _cert("binlog-cdc other CA", other_ca_key, None, ca=True)
        (directory / "ca.pem").write_bytes(_pem(ca))
        (directory / "other-ca.pem").write_bytes(_pem(other_ca))
        for name, hosts in (("good", ("127.0.0.1", "localhost")), ("wronghost", ("db.elsewhere.example",))):
            key = _key()
            cert = _cert(f"server {name}", key, (ca, ca_key), hosts=hosts, usage=ExtendedKeyUsageOID.SERVER_AUTH)
            (directory / f"server-{name}.pem").write_bytes(_pem(cert))
            (directory / f"server-{name}-key.pem").write_bytes(_key_pem(key))
        client_key = _key()
        client = _cert("debezium", client_key, (ca, ca_key), usage=ExtendedKeyUsageOID.CLIENT_AUTH)
        (directory / "client.pem").write_bytes(_pem(client))
        (directory / "client-key.pem").write_bytes(_key_pem(client_key))
        enc = serialization.BestAvailableEncryption(pki.store_password.encode())
        (directory / "client.p12").write_bytes(
            pkcs12.serialize_key_and_certificates(b"client", client_key, client, [ca], enc))
        (directory / "truststore.p12").write_bytes(
            pkcs12.serialize_key_and_certificates(None, None, None, [ca], enc))
        if java_stores:
            pki._keytool_stores()
        return pki

    def _keytool_stores(self) -> None:
        keytool = shutil.which("keytool")
        if keytool is None:
            return
        pw = self.store_password
        for args in (
            ["-importcert", "-noprompt", "-alias", "ca", "-file", str(self.dir / "ca.pem"),
             "-keystore", str(self.dir / "truststore.jks"), "-storetype", "JKS", "-storepass", pw],
            ["-importkeystore", "-noprompt", "-srckeystore", str(self.dir / "client.p12"), "-srcstoretype",
             "PKCS12", "-srcstorepass", pw, "-destkeystore", str(self.dir / "client.jks"), "-deststoretype", "JKS",
             "-deststorepass", pw],
        ):
            subprocess.run([keytool, *args], check=True, capture_output=True, stdin=subprocess.DEVNULL)

    @property
    def ca(self) -> Path:
        return self.dir / "ca.pem"

    @property
    def other_ca(self) -> Path:
        return self.dir / "other-ca.pem"

    @property
    def jks_truststore(self) -> Path | None:
        p = self.dir / "truststore.jks"
        return p if p.exists() else None

    @property
    def jks_keystore(self) -> Path | None:
        p = self.dir / "client.jks"
        return p if p.exists() else None

    def server_pem(self, name: str) -> tuple[Path, Path]:
        return self.dir / f"server-{name}.pem", self.dir / f"server-{name}-key.pem"

    def server_options(self, served: Path) -> tuple[str, ...]:
        """Option-file lines for a server with TLS required, reading its certificate from `served`/."""
        return (f"ssl_ca={self.ca}", f"ssl_cert={served / 'server-cert.pem'}", f"ssl_key={served / 'server-key.pem'}",
                "require_secure_transport=ON")

    def serve(self, served: Path, name: str) -> None:
        """Put server certificate `name` where `server_options` points (the server reloads it on request)."""
        served.mkdir(parents=True, exist_ok=True)
        cert, key = self.server_pem(name)
        shutil.copyfile(cert, served / "server-cert.pem")
        shutil.copyfile(key, served / "server-key.pem")
