"""Where a webhook may be POSTed: public addresses only, unless the operator allows more.

Anyone may create a game and set its webhook, so a webhook URL is untrusted input that would make
the worker send signed requests wherever it points. ``check`` resolves the URL's host (numeric
forms such as ``2130706433`` and ``0x7f000001`` included) and refuses it when any address it
resolves to is unspecified, loopback, link-local, multicast, private, reserved or otherwise not
global (an IPv4 address inside an IPv6 one, ``::ffff:127.0.0.1`` or 6to4, is judged by the IPv4
address), or when it names warlog's own API. The API checks a URL when it is set without asking DNS
(``check_written``: a resolver that answers slowly would hold the request): its form, warlog's own
API, and a host that is an address (or a localhost name, RFC 6761); the worker checks it in full
(``check``) before every delivery and then connects to the address it checked (``Target.address``),
so a name that resolves elsewhere meanwhile (DNS rebinding) changes nothing, and a name that
resolves to an internal address is a failed delivery, its reason recorded.

``WARLOG_WEBHOOK_ALLOW`` is the operator's allow-list for trusted internal receivers: entries
separated by commas or spaces, each an address or network (``127.0.0.1``, ``10.0.0.0/8``, ``::1``)
or a host name (``hooks.internal``), optionally with a port (``127.0.0.1:8080``, ``[::1]:8080``,
``[10.0.0.0/8]:9000``, ``hooks.internal:9000``). A name entry trusts whatever that name resolves to.
"""

from __future__ import annotations

import ipaddress
import os
import re
import socket
from dataclasses import dataclass
from typing import Mapping
from urllib.parse import urlsplit

ALLOW_ENV = "WARLOG_WEBHOOK_ALLOW"
SCHEMES = {"http": 80, "https": 443}
_NAME = re.compile(r"^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*\.?$")

Address = ipaddress.IPv4Address | ipaddress.IPv6Address


class Refused(ValueError):
    """A webhook URL warlog will not POST to; the message says why."""


@dataclass(frozen=True)
class Target:
    """A checked webhook URL: where to connect (``address``) and what to call the host there."""

    scheme: str
    host: str  # as written in the URL: the Host header, TLS's SNI and certificate name
    port: int
    path: str  # with the query
    address: str  # the checked address the delivery connects to
    host_header: str


@dataclass(frozen=True)
class Allow:
    """The operator's allow-list: networks and host names, each with an optional port."""

    networks: tuple = ()  # (ip_network, port or None)
    names: tuple = ()  # (lower-case host name, port or None)

    @classmethod
    def parse(cls, text: str) -> "Allow":
        networks, names = [], []
        for entry in re.split(r"[\s,]+", text.strip()):
            if not entry:
                continue
            host, port = _split_port(entry)
            try:
                networks.append((ipaddress.ip_network(host, strict=False), port))
            except ValueError:
                name = host.lower()
                if not _NAME.match(name):
                    raise ValueError(f"{ALLOW_ENV}: {entry!r} is neither an address, a network "
                                     "nor a host name") from None
                names.append((name.rstrip("."), port))
        return cls(tuple(networks), tuple(names))

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> "Allow":
        env = os.environ if env is None else env
        return cls.parse(env.get(ALLOW_ENV) or "")

    def trusts_name(self, host: str, port: int) -> bool:
        return any(name == host and want in (None, port) for name, want in self.names)

    def trusts_address(self, address: Address, port: int) -> bool:
        return any(address in network and want in (None, port) for network, want in self.networks)


def _split_port(entry: str) -> tuple[str, int | None]:
    """``[v6 or network]:port``, ``v4-or-name:port`` or a bare entry (an IPv6 one has several colons)."""
    if entry.startswith("["):
        inside, _, rest = entry[1:].partition("]")
        if rest and not rest.startswith(":"):
            raise ValueError(f"{ALLOW_ENV}: {entry!r} is not [address]:port")
        return inside, _port(entry, rest[1:]) if rest else None
    if entry.count(":") == 1:
        host, _, port = entry.partition(":")
        return host, _port(entry, port)
    return entry, None


def _port(entry: str, text: str) -> int:
    if not (text.isascii() and text.isdigit()) or not 0 < int(text) < 65536:
        raise ValueError(f"{ALLOW_ENV}: {entry!r} has no valid port")
    return int(text)


# ================================================================================ checking ====
def why_not_public(address: Address) -> str | None:
    """Why ``address`` is no place for a webhook (None: it is a public address)."""
    if isinstance(address, ipaddress.IPv6Address):
        inner = address.ipv4_mapped or address.sixtofour
        if inner is not None:
            return why_not_public(inner)
    for kind, refused in (("an unspecified", address.is_unspecified), ("a loopback", address.is_loopback),
                          ("a link-local", address.is_link_local), ("a multicast", address.is_multicast),
                          ("a reserved", address.is_reserved), ("a private", address.is_private)):
        if refused:
            return f"{kind} address"
    return None if address.is_global else "not a public address"


def written_address(host: str) -> Address | None:
    """The address ``host`` is written as: a literal, or a numeric IPv4 form the C library reads
    (``2130706433``, ``0x7f000001``, ``127.1``); None for a name."""
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        pass
    try:
        return ipaddress.IPv4Address(socket.inet_aton(host))
    except OSError:
        return None


def resolve(host: str, port: int) -> list[Address]:
    """The addresses ``host`` stands for: the address it is written as, else the name's addresses
    (getaddrinfo)."""
    written = written_address(host)
    if written is not None:
        return [written]
    found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(ipaddress.ip_address(info[4][0].split("%", 1)[0]) for info in found))


def check_written(url: str, allow: Allow | None = None, own: str | None = None) -> None:
    """What can be refused in ``url`` without asking DNS (the API, when a webhook is set): its form,
    warlog's own API, a host written as an internal address, and a localhost name (RFC 6761: the
    loopback, whatever a resolver says). A name is resolved and judged at each delivery (``check``)."""
    allow = Allow.from_env() if allow is None else allow
    where, scheme, host, port = _place(url, own)
    if allow.trusts_name(host, port):
        return
    if host.rstrip(".") == "localhost" or host.rstrip(".").endswith(".localhost"):
        raise Refused(f"webhook target {host} is a loopback name; refused (operator allow-list: {ALLOW_ENV})")
    written = written_address(host)
    if written is not None:
        _judge(host, port, [written], allow, own)


def _place(url: str, own: str | None):
    """(the split URL, scheme, host, port) of a webhook URL that is not warlog's own API by name."""
    where = _parse(url)
    scheme, host, port = where.scheme.lower(), where.hostname, where.port or SCHEMES[where.scheme.lower()]
    if own and _same_place(host, port, own):
        raise Refused(f"webhook target {host}:{port} is warlog's own API (WARLOG_PUBLIC_URL); refused")
    return where, scheme, host, port


def check(url: str, allow: Allow | None = None, own: str | None = None) -> Target:
    """The target of ``url`` once every address its host resolves to is allowed; raises
    Refused naming the rule otherwise. ``own`` is warlog's public URL, never a webhook."""
    allow = Allow.from_env() if allow is None else allow
    where, scheme, host, port = _place(url, own)
    try:
        addresses = resolve(host, port)
    except (OSError, UnicodeError) as exc:
        raise Refused(f"webhook host {host} does not resolve ({exc})") from None
    if not addresses:
        raise Refused(f"webhook host {host} does not resolve")
    _judge(host, port, addresses, allow, own)
    path = (where.path or "/") + (f"?{where.query}" if where.query else "")
    return Target(scheme, host, port, path, str(addresses[0]), where.netloc)


def _judge(host: str, port: int, addresses: list[Address], allow: Allow, own: str | None) -> None:
    """Refuse ``host`` when one of its ``addresses`` is internal and not allowed, or is warlog's own API."""
    if not allow.trusts_name(host, port):
        for address in addresses:
            reason = why_not_public(address)
            if reason and not allow.trusts_address(address, port):
                raise Refused(f"webhook target {_shown(host, address)} is {reason}; "
                              f"refused (operator allow-list: {ALLOW_ENV})")
    if own and any(a.is_loopback and port == _port_of(own) for a in addresses):
        raise Refused(f"webhook target {host}:{port} is warlog's own API (WARLOG_PUBLIC_URL); refused")


def _shown(host: str, address: Address) -> str:
    """The host as written, and the address it stands for when that is not the same text."""
    try:
        literal = ipaddress.ip_address(host) == address
    except ValueError:
        literal = False
    return host if literal else f"{host} ({address})"


def _parse(url: str):
    try:
        where = urlsplit(url)
        where.port  # noqa: B018  (raises ValueError for a port out of range or not a number)
    except ValueError as exc:
        raise Refused(f"webhook URL is malformed ({exc})") from None
    if where.scheme.lower() not in SCHEMES:
        raise Refused(f"webhook URL must be http:// or https://, not {where.scheme or 'scheme-less'}")
    if not where.hostname:
        raise Refused("webhook URL has no host")
    if where.username is not None or where.password is not None:
        raise Refused("webhook URL may not carry a user name or password")
    return where


def _port_of(url: str) -> int:
    where = urlsplit(url)
    return where.port or SCHEMES.get(where.scheme.lower(), 80)


def _same_place(host: str, port: int, own: str) -> bool:
    where = urlsplit(own)
    return (where.hostname or "").lower() == host and port == _port_of(own)
