"""Who may talk to the HTTP and WebSocket faces from a browser: CORS, virtual hosts, WebSocket origins.

The rules are geth's (--http.corsdomain, --http.vhosts, --ws.origins): they guard against web pages
reaching a node on the user's machine; non-browser clients send no Origin and are never refused.
"""

import socket
from urllib.parse import urlsplit

import attrs

CORS_MAX_AGE = 600      # seconds a browser may cache a preflight answer (geth's)


def split_list(text):
    """A comma separated setting as a list of its non-empty, stripped, lower-cased entries."""
    return [part.strip().lower() for part in text.split(",") if part.strip()]


@attrs.frozen
class OriginRule:
    """One allowed origin: `*`, `https://app.example`, `http://localhost:3000` or a bare host name.

    A rule without a scheme allows any scheme, without a port any port (geth's ruleAllowsOrigin).
    """

    scheme: str
    host: str
    port: str

    @classmethod
    def parse(cls, text):
        if "://" not in text:
            text = "//" + text
        parts = urlsplit(text)
        return cls(parts.scheme, parts.hostname or "", str(parts.port) if parts.port else "")

    def allows(self, origin):
        parts = urlsplit(origin)
        if self.scheme and parts.scheme != self.scheme:
            return False
        if (parts.hostname or "") != self.host:
            return False
        try:
            port = str(parts.port) if parts.port else ""
        except ValueError:
            return False
        return not self.port or port == self.port


@attrs.frozen
class OriginPolicy:
    """A list of allowed origins; `*` allows every origin."""

    rules: tuple
    allow_all: bool = False

    @classmethod
    def parse(cls, text, default=()):
        entries = split_list(text) or list(default)
        return cls(tuple(OriginRule.parse(e) for e in entries if e != "*"), "*" in entries)

    def allows(self, origin):
        origin = origin.lower()
        return self.allow_all or any(rule.allows(origin) for rule in self.rules)


def websocket_origins(text):
    """The --ws.origins policy: the setting, or (left empty) http://localhost and http://<this host>."""
    return OriginPolicy.parse(text, default=("http://localhost", f"http://{socket.gethostname().lower()}"))


def websocket_origin_allowed(policy, origin):
    """A handshake without an Origin header comes from no browser: nothing to guard against."""
    return origin is None or policy.allows(origin)


# Browser extensions (a wallet such as MetaMask) send their own origin; they are not web pages, and geth serves
# them whatever --http.corsdomain says.
EXTENSION_SCHEMES = ("chrome-extension", "moz-extension", "safari-web-extension")


def request_origin_allowed(policy, origin):
    """Whether a request (a POST that runs methods) from `origin` is served: no Origin (no browser), a browser
    extension, or an origin `policy` (an OriginPolicy, or None for none) allows. A page on any other site is
    refused, whatever it sends: a browser lets it send a "simple" POST without asking the node first."""
    if origin is None or origin.split("://", 1)[0].lower() in EXTENSION_SCHEMES:
        return True
    return policy is not None and policy.allows(origin)


def cors_headers(policy, origin, preflight=None):
    """The CORS header lines (bytes) to answer a request from `origin` with; b"" when it is not allowed.

    `preflight` is (requested method, requested headers) for an OPTIONS preflight, else None.
    """
    if origin is None or not policy.allows(origin):
        return b""
    allowed = b"*" if policy.allow_all else origin.encode("latin-1")
    lines = b"Access-Control-Allow-Origin: %s\r\nVary: Origin\r\n" % allowed
    if preflight is not None:
        method, headers = preflight
        lines += b"Access-Control-Allow-Methods: %s\r\n" % (method.upper() or b"POST")
        if headers:
            lines += b"Access-Control-Allow-Headers: %s\r\n" % headers
        lines += b"Access-Control-Max-Age: %d\r\n" % CORS_MAX_AGE
    return lines


def host_allowed(vhosts, host):
    """geth's virtual host check: an IP address or no Host passes; a name must be listed (or `*`)."""
    if not host:
        return True
    name = host.rsplit(":", 1)[0] if host.count(":") == 1 or host.startswith("[") else host
    name = name.strip("[]").lower()
    try:
        socket.inet_pton(socket.AF_INET6 if ":" in name else socket.AF_INET, name)
        return True
    except OSError:
        pass
    return "*" in vhosts or name in vhosts
