"""Who may call what: TLS, users with roles, and the cluster's own secret.

A cluster file's ``security`` section (paths relative to the file)::

    security:
      tls:                      # every gRPC server and client of the cluster
        cert: tls/server.crt    # the daemons' certificate (and key)
        key: tls/server.key
        ca: tls/ca.crt          # what clients (the CLI, daemons) trust
      cluster_secret_file: cluster.secret   # daemons show it to each other
      auth:                     # Peloton's basic-auth config
        users:
          - {name: alice, password_file: alice.password, role: admin}
        roles:
          - {name: admin, accept: ["*"]}
          - {name: reader, accept: ["*.Get*", "*.List*", "*.Query*"], reject: []}

A public call must carry a user's name and password (``authorization:
Basic ...``); its role accepts ``<package>.<Service>.<Method>`` by the
first pattern (``fnmatch``) of ``accept`` that matches, unless one of
``reject`` does. The daemons' internal services (``peloton.private.*``)
accept only calls that carry the cluster secret (``x-peloton-cluster``),
which daemons add to every call they make. A daemon refuses to serve off
loopback unless TLS, users and the cluster secret are all configured.

Checks run in grpclib's ``RecvRequest`` event, before the handler; a
refusal is UNAUTHENTICATED (no or wrong credentials) or PERMISSION_DENIED
(the role does not accept the method).
"""

from __future__ import annotations

import base64
import fnmatch
import hashlib
import hmac
import ipaddress
import os
import pathlib
import ssl
import stat
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from peloton.core.errors import InvalidArgument

__all__ = ["Credentials", "Security", "is_loopback", "parse_security"]

SECRET_HEADER = "x-peloton-cluster"
AUTH_HEADER = "authorization"
MIN_SECRET_CHARS = 16


@dataclass(frozen=True, slots=True)
class Role:
    name: str
    accept: tuple[str, ...]
    reject: tuple[str, ...] = ()

    def allows(self, method: str) -> bool:
        if any(fnmatch.fnmatchcase(method, p) for p in self.reject):
            return False
        return any(fnmatch.fnmatchcase(method, p) for p in self.accept)


@dataclass(frozen=True, slots=True)
class Credentials:
    """What a client shows: a user and password, or the cluster secret."""

    user: str = ""
    password: str = ""
    cluster_secret: str = ""

    def metadata(self) -> list[tuple[str, str]]:
        out = []
        if self.user:
            token = base64.b64encode(f"{self.user}:{self.password}".encode()).decode()
            out.append((AUTH_HEADER, f"Basic {token}"))
        if self.cluster_secret:
            out.append((SECRET_HEADER, self.cluster_secret))
        return out


@dataclass(frozen=True, slots=True)
class Security:
    cert: pathlib.Path | None = None
    key: pathlib.Path | None = None
    ca: pathlib.Path | None = None
    cluster_secret: str = ""
    # user -> (sha256 of the password, role)
    users: Mapping[str, tuple[bytes, Role]] = field(default_factory=dict)
    # What the CLI and the Python client show when nothing else says:
    # security.client {user, password_file}.
    client: Credentials = field(default_factory=Credentials)

    @property
    def tls(self) -> bool:
        return self.cert is not None

    @property
    def complete(self) -> bool:
        """TLS, users and the cluster secret: what serving off loopback needs."""
        return self.tls and bool(self.users) and bool(self.cluster_secret)

    def server_ssl(self) -> ssl.SSLContext | None:
        if self.cert is None or self.key is None:
            return None
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(str(self.cert), str(self.key))
        context.set_alpn_protocols(["h2"])
        return context

    def client_ssl(self) -> ssl.SSLContext | None:
        if self.ca is None:
            return None
        context = ssl.create_default_context(ssl.Purpose.SERVER_AUTH, cafile=str(self.ca))
        context.set_alpn_protocols(["h2"])
        return context

    def daemon_credentials(self) -> Credentials:
        return Credentials(cluster_secret=self.cluster_secret)

    def check(self, method: str, metadata: Mapping[str, str], internal: bool) -> str | None:
        """Why the call of ``method`` (``/package.Service/Method``) with this
        metadata is refused (``UNAUTHENTICATED: ...`` or ``PERMISSION_DENIED:
        ...``), or None when it may go on."""
        secret = metadata.get(SECRET_HEADER, "")
        by_daemon = bool(self.cluster_secret) and hmac.compare_digest(
            secret.encode(), self.cluster_secret.encode())
        if internal:
            if self.cluster_secret and not by_daemon:
                return "UNAUTHENTICATED: only the cluster's daemons may call this service"
            return None
        if not self.users or by_daemon:
            return None
        header = metadata.get(AUTH_HEADER, "")
        scheme, _, token = header.partition(" ")
        try:
            user, _, password = base64.b64decode(token, validate=True).decode().partition(":")
        except (ValueError, UnicodeDecodeError):
            user, password = "", ""
        known = self.users.get(user) if scheme.lower() == "basic" else None
        if known is None or not hmac.compare_digest(
                hashlib.sha256(password.encode()).digest(), known[0]):
            return "UNAUTHENTICATED: a user and password are required (Basic authorization)"
        name = method.strip("/").replace("/", ".")
        if not known[1].allows(name):
            return f"PERMISSION_DENIED: role {known[1].name} may not call {name}"
        return None


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _secret_file(path: pathlib.Path, field_name: str) -> str:
    try:
        with path.open() as f:
            mode = os.fstat(f.fileno()).st_mode
            value = f.read().strip()
    except OSError as error:
        raise InvalidArgument(f"cannot read {path}: {error.strerror}", field=field_name)
    if mode & 0o077:
        raise InvalidArgument(f"{path} has mode {stat.S_IMODE(mode):04o}: it must be readable "
                              f"by its owner only (chmod 600 {path})", field=field_name)
    return value


def _strings(value: Any, field_name: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, Sequence) or isinstance(value, str) or not all(
            isinstance(v, str) and v for v in value):
        raise InvalidArgument("must be a list of patterns", field=field_name)
    return tuple(value)


def parse_security(data: Any, base: pathlib.Path) -> Security:
    """The cluster file's ``security`` section (None: none)."""
    if data is None:
        return Security()
    if not isinstance(data, Mapping):
        raise InvalidArgument("must be a mapping", field="security")
    unknown = set(data) - {"tls", "cluster_secret_file", "auth", "client"}
    if unknown:
        raise InvalidArgument(f"unknown keys {sorted(unknown)}", field="security")
    cert = key = ca = None
    tls = data.get("tls")
    if tls is not None:
        if not isinstance(tls, Mapping) or set(tls) - {"cert", "key", "ca"}:
            raise InvalidArgument("must be a mapping of cert, key, ca", field="security.tls")
        paths = {}
        for name in ("cert", "key", "ca"):
            value = tls.get(name)
            if not isinstance(value, str) or not value:
                raise InvalidArgument("required: a file", field=f"security.tls.{name}")
            path = (base / value).resolve()
            if not path.is_file():
                raise InvalidArgument(f"{path} is not a file", field=f"security.tls.{name}")
            paths[name] = path
        cert, key, ca = paths["cert"], paths["key"], paths["ca"]
    secret = ""
    secret_file = data.get("cluster_secret_file")
    if secret_file is not None:
        if not isinstance(secret_file, str):
            raise InvalidArgument("must be a path", field="security.cluster_secret_file")
        secret = _secret_file(base / secret_file, "security.cluster_secret_file")
        if len(secret) < MIN_SECRET_CHARS:
            raise InvalidArgument(f"the cluster secret must have at least {MIN_SECRET_CHARS} "
                                  "characters", field="security.cluster_secret_file")
    users: dict[str, tuple[bytes, Role]] = {}
    auth = data.get("auth")
    if auth is not None:
        if not isinstance(auth, Mapping) or set(auth) - {"users", "roles"}:
            raise InvalidArgument("must be a mapping of users and roles", field="security.auth")
        roles: dict[str, Role] = {}
        for i, r in enumerate(auth.get("roles") or ()):
            at = f"security.auth.roles[{i}]"
            if not isinstance(r, Mapping) or not isinstance(r.get("name"), str):
                raise InvalidArgument("a role needs a name", field=at)
            roles[r["name"]] = Role(r["name"], _strings(r.get("accept"), f"{at}.accept"),
                                    _strings(r.get("reject"), f"{at}.reject"))
        for i, u in enumerate(auth.get("users") or ()):
            at = f"security.auth.users[{i}]"
            if not isinstance(u, Mapping) or not isinstance(u.get("name"), str) or not u["name"]:
                raise InvalidArgument("a user needs a name", field=at)
            if u.get("role") not in roles:
                raise InvalidArgument(f"no role {u.get('role')!r}", field=f"{at}.role")
            if "password_file" in u:
                password = _secret_file(base / str(u["password_file"]), f"{at}.password_file")
            elif isinstance(u.get("password"), str):
                password = u["password"]
            else:
                raise InvalidArgument("a user needs a password or password_file", field=at)
            if not password:
                raise InvalidArgument("the password is empty", field=at)
            users[u["name"]] = (hashlib.sha256(password.encode()).digest(), roles[u["role"]])
    client = Credentials()
    c = data.get("client")
    if c is not None:
        if not isinstance(c, Mapping) or set(c) - {"user", "password_file"} or not isinstance(
                c.get("user"), str) or not isinstance(c.get("password_file"), str):
            raise InvalidArgument("must be a mapping of user and password_file",
                                  field="security.client")
        client = Credentials(c["user"], _secret_file(base / c["password_file"],
                                                     "security.client.password_file"))
    return Security(cert, key, ca, secret, users, client)
