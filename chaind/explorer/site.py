"""Serves the explorer's static files, /config.json (the URLs of the faces the page talks to) and /clock.json
(the chain's clock, which a dev chain's time controls move, for the page's "ago").

The files are read once at start; every answer carries a Content-Security-Policy that lets the page run only
its own script and connect only to those faces, a second guard behind its text-only rendering.
"""

import mimetypes
import pathlib
from urllib.parse import urlsplit

import orjson
from twisted.web import resource

from chaind.rpc.web_limits import GuardedSite

STATIC = pathlib.Path(__file__).parent / "static"
FILES = ("index.html", "app.js", "style.css")


class ExplorerResource(resource.Resource):
    isLeaf = True

    def __init__(self, urls, chain, clock):
        """`urls(request)` -> {"jsonRpc", "websocket", "cometbft", "rest"}; `chain` -> static facts for the page;
        `clock()` -> the chain's time now, in ms since the epoch."""
        super().__init__()
        self.urls = urls
        self.chain = chain
        self.clock = clock
        self.files = {}
        for name in FILES:
            kind = mimetypes.guess_type(name)[0] or "application/octet-stream"
            self.files[name] = (f"{kind}; charset=utf-8".encode(), (STATIC / name).read_bytes())

    def render_GET(self, request):
        name = b"/".join(request.postpath).decode("utf-8", "replace") or "index.html"
        urls = self.urls(request)
        self._security_headers(request, urls)
        if name == "config.json":
            request.setHeader(b"content-type", b"application/json")
            request.setHeader(b"cache-control", b"no-store")
            return orjson.dumps({**urls, **self.chain})
        if name == "clock.json":
            request.setHeader(b"content-type", b"application/json")
            request.setHeader(b"cache-control", b"no-store")
            return orjson.dumps({"now": self.clock()})
        found = self.files.get(name)
        if found is None:
            request.setResponseCode(404)
            request.setHeader(b"content-type", b"text/plain; charset=utf-8")
            return b"not found\n"
        request.setHeader(b"content-type", found[0])
        request.setHeader(b"cache-control", b"no-cache")
        return found[1]

    def _security_headers(self, request, urls):
        sources = " ".join(sorted({_origin(u) for u in urls.values() if u}))
        request.setHeader(b"content-security-policy", (
            f"default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
            f"connect-src 'self' {sources}; base-uri 'none'; form-action 'none'; frame-ancestors 'none'").encode())
        request.setHeader(b"x-content-type-options", b"nosniff")
        request.setHeader(b"referrer-policy", b"no-referrer")


def _origin(url):
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def make_site(urls, chain, clock, read_timeout=0, idle_timeout=None):
    return GuardedSite(ExplorerResource(urls, chain, clock), read_timeout, idle_timeout)
