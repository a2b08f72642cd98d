"""A cluster's own certificate authority and server certificate, for TLS.

``python -m peloton.ops.certs DIR [HOST ...]`` writes ``DIR/ca.crt`` (what
clients trust), ``DIR/server.crt`` and ``DIR/server.key`` (0600; what every
daemon serves with, valid for ``localhost``, 127.0.0.1, ::1 and each HOST,
a name or an address), and a cluster secret ``DIR/cluster.secret`` (0600).
The cluster file's ``security.tls`` and ``security.cluster_secret_file``
then name them. A site with its own CA gives its certificates instead.
"""

from __future__ import annotations

import datetime
import ipaddress
import os
import pathlib
import secrets
import sys
from collections.abc import Sequence

__all__ = ["make_certs"]

VALID_DAYS = 825


def _write(path: pathlib.Path, data: bytes, mode: int) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    path.chmod(mode)


def make_certs(directory: pathlib.Path, hosts: Sequence[str] = ()) -> None:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    directory.mkdir(parents=True, exist_ok=True)
    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "peloton cluster CA")])
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name)
          .public_key(ca_key.public_key()).serial_number(x509.random_serial_number())
          .not_valid_before(now - datetime.timedelta(minutes=5))
          .not_valid_after(now + datetime.timedelta(days=VALID_DAYS))
          .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
          .sign(ca_key, hashes.SHA256()))
    key = ec.generate_private_key(ec.SECP256R1())
    names: list[x509.GeneralName] = [x509.DNSName("localhost"),
                                     x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
                                     x509.IPAddress(ipaddress.ip_address("::1"))]
    for host in hosts:
        try:
            names.append(x509.IPAddress(ipaddress.ip_address(host)))
        except ValueError:
            names.append(x509.DNSName(host))
    cert = (x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "peloton")]))
            .issuer_name(ca_name).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=VALID_DAYS))
            .add_extension(x509.SubjectAlternativeName(names), critical=False)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH,
                                                  ExtendedKeyUsageOID.CLIENT_AUTH]),
                           critical=False)
            .sign(ca_key, hashes.SHA256()))
    pem = serialization.Encoding.PEM
    _write(directory / "ca.crt", ca.public_bytes(pem), 0o644)
    _write(directory / "server.crt", cert.public_bytes(pem), 0o644)
    _write(directory / "server.key", key.private_bytes(
        pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()), 0o600)
    secret_path = directory / "cluster.secret"
    if not secret_path.exists():
        _write(secret_path, secrets.token_urlsafe(32).encode() + b"\n", 0o600)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        print("usage: python -m peloton.ops.certs DIR [HOST ...]", file=sys.stderr)
        return 2
    make_certs(pathlib.Path(args[0]), args[1:])
    print(f"wrote {args[0]}/ca.crt, server.crt, server.key, cluster.secret")
    return 0


if __name__ == "__main__":
    sys.exit(main())
