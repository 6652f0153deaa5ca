"""Who may reach the preview: the Host names it answers to, and a warning when other machines can.

The preview binds 127.0.0.1 unless told otherwise (`serve --host`). Even then a
web page open in the author's browser can reach it by DNS rebinding; the Host
filter refuses that.
"""
from __future__ import annotations

import ipaddress
import re
import socket

HOST = re.compile(r"(?:\[(?P<ip6>[0-9A-Fa-f:.]+)\]|(?P<name>[A-Za-z0-9._-]+))(?::[0-9]*)?")


class HostFilter:
    """The Host names this server answers to: loopback ones and the one it was started with.

    A web page can point its own domain at 127.0.0.1 (DNS rebinding) and then
    read the preview as same-origin; its requests carry that domain as Host.
    An IP address as Host cannot be rebound, so a server listening on every
    address (0.0.0.0, ::) accepts any address, plus this machine's name."""

    def __init__(self, bind_host: str):
        self.names = {"localhost"}
        self.addresses: set = set()
        self.any_address = False
        bind = _address(bind_host or "0.0.0.0")  # '' listens on every address, like 0.0.0.0
        if bind is None:
            self.names.add(bind_host.lower().rstrip("."))
        elif bind.is_unspecified:
            self.any_address = True
            self.names.update({socket.gethostname().lower(), socket.gethostname().lower() + ".local"})
        else:
            self.addresses.add(bind)

    def describe(self) -> str:
        extra = sorted(self.names - {"localhost"}) + sorted(str(a) for a in self.addresses if not a.is_loopback)
        names = ["localhost", "127.0.0.1", "[::1]"] + extra + (["any IP address"] if self.any_address else [])
        return ", ".join(names[:-1]) + " and " + names[-1]

    def allows(self, host: str) -> bool:
        """Whether a Host value (name or address, with or without a port) means this server."""
        match = HOST.fullmatch(host)
        if not match:
            return False
        name = (match.group("ip6") or match.group("name")).lower().rstrip(".")
        address = _address(name)
        if address is None:
            return name in self.names
        return address.is_loopback or self.any_address or address in self.addresses


def _address(text: str):
    """An IP address (IPv4-mapped IPv6 as IPv4), or None for a name."""
    try:
        address = ipaddress.ip_address(text.strip("[]"))
    except ValueError:
        return None
    return getattr(address, "ipv4_mapped", None) or address


def exposure_warning(host: str) -> str | None:
    """A warning when the preview is reachable from other machines."""
    address = _address(host)
    if host == "localhost" or (address is not None and address.is_loopback):
        return None
    return f"warning: listening on {host}: other machines can reach this preview (use 127.0.0.1 to keep it local)"
