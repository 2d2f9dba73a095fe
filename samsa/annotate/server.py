"""The local web server of ``samsa annotate`` (the standard library's ``http.server``). More: docs/architecture.md,
"Module notes"."""

from __future__ import annotations

import hmac
import json
import re
import secrets
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any
from urllib.parse import parse_qs, urlsplit

from samsa.annotate.workspace import SaveError, Workspace

__all__ = ["MAX_BODY", "AnnotateServer"]

#: the largest request body accepted (a skeleton of a 1000-token line is far smaller)
MAX_BODY = 1 << 20

ASSETS = {
    "/": ("index.html", "text/html"),
    "/annotate.js": ("annotate.js", "text/javascript"),
    "/annotate.css": ("annotate.css", "text/css"),
    "/keys.json": ("keys.json", "application/json"),
}
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
LINE_PATH = re.compile(r"/api/line/([1-9][0-9]{0,9})(/edit)?")


class AnnotateServer(ThreadingHTTPServer):
    """The server: the workspace it serves, its token, the hosts and origins it answers."""

    daemon_threads = True
    allow_reuse_address = True  # a restart binds at once (a listening socket still holds its port: never shared)

    def __init__(self, port: int, workspace: Workspace, token: str | None = None) -> None:
        super().__init__(("127.0.0.1", port), Handler)
        self.workspace = workspace
        self.token = token or secrets.token_urlsafe(24)
        self.port = self.server_address[1]
        self.hosts = {f"127.0.0.1:{self.port}", f"localhost:{self.port}"}
        self.origins = {f"http://{h}" for h in self.hosts}

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/?token={self.token}"


def _asset(name: str) -> bytes:
    return (resources.files("samsa.annotate") / "assets" / name).read_bytes()


class Handler(BaseHTTPRequestHandler):
    server: AnnotateServer
    server_version = "samsa-annotate"
    sys_version = ""
    timeout = 30  # seconds a connection may stay silent

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the terminal shows the URL and what the user does, not every request."""

    # ------------------------------------------------------------------ checks
    def _refuse(self, status: int, message: str, reason: str = "") -> None:
        self._send(status, json.dumps({"error": message, "reason": reason}).encode(), "application/json")

    def _allowed(self) -> bool:
        if self.headers.get("Host", "") not in self.server.hosts:
            self._refuse(403, "unknown Host: this server answers 127.0.0.1 only")
            return False
        query = parse_qs(urlsplit(self.path).query)
        given = self.headers.get("X-Samsa-Token") or (query.get("token") or [""])[0]
        if not hmac.compare_digest(given.encode(), self.server.token.encode()):
            self._refuse(403, "missing or wrong token: open the URL samsa annotate printed")
            return False
        origin = self.headers.get("Origin")
        if origin is not None and origin not in self.server.origins:
            self._refuse(403, "cross-origin request refused")
            return False
        return True

    def _body(self) -> tuple[bool, Any]:
        """(whether the body is acceptable JSON, its value); a refusal is answered here."""
        if self.headers.get("Content-Type", "").split(";")[0].strip() != "application/json":
            self._refuse(415, "send JSON (Content-Type: application/json)")
            return False, None
        length = self.headers.get("Content-Length")
        if length is None or not length.isdigit():
            self._refuse(411, "Content-Length required")
            return False, None
        if int(length) > MAX_BODY:
            self._refuse(413, f"request body over {MAX_BODY} bytes")
            return False, None
        try:
            return True, json.loads(self.rfile.read(int(length)) or b"null")
        except (ValueError, RecursionError):
            self._refuse(400, "not JSON, or nested too deep")
            return False, None

    # ------------------------------------------------------------------ answers
    def _send(self, status: int, body: bytes, kind: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", f"{kind}; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("X-Frame-Options", "DENY")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("Content-Security-Policy", CSP)
        self.end_headers()
        self.wfile.write(body)

    def _json(self, value: Any) -> None:
        self._send(200, json.dumps(value, ensure_ascii=False).encode(), "application/json")

    def do_GET(self) -> None:
        if not self._allowed():
            return
        path = urlsplit(self.path).path
        workspace = self.server.workspace
        if path in ASSETS:
            name, kind = ASSETS[path]
            body = _asset(name)
            if name == "index.html":  # the token is URL-safe base64: nothing in it needs escaping
                body = body.replace(b"{{TOKEN}}", self.server.token.encode())
            self._send(200, body, kind)
        elif path == "/api/overview":
            self._json(workspace.overview())
        elif path == "/api/estimate":
            self._json(workspace.estimate())
        elif (m := LINE_PATH.fullmatch(path)) and not m.group(2) and int(m.group(1)) in workspace.lines:
            self._json(workspace.open(int(m.group(1))))
        else:
            self._refuse(404, "not found")

    def do_POST(self) -> None:
        if not self._allowed():
            return
        m = LINE_PATH.fullmatch(urlsplit(self.path).path)
        if not m or int(m.group(1)) not in self.server.workspace.lines:
            self._refuse(404, "not found")
            return
        ok, doc = self._body()
        if not ok:
            return
        workspace = self.server.workspace
        try:
            self._json((workspace.edit if m.group(2) else workspace.save)(int(m.group(1)), doc))
        except SaveError as e:
            self._refuse(e.status, str(e), e.reason)

    def _method_not_allowed(self) -> None:
        if self._allowed():
            self._refuse(405, "method not allowed")

    do_PUT = do_DELETE = do_PATCH = _method_not_allowed
