"""``python -m scorer assess``: the judging page, served on this machine only.

One server per assessor: it serves one pool and writes that assessor's judgements file.
``GET /`` is the page (``templates/assess.html``: the questions one at a time, keyboard
shortcuts, progress); ``GET /state`` gives the pool and the judgements so far;
``POST /judge`` with ``{"key": "<question>/<item>", "judgement": {...} | null}`` checks
the one judgement against the pool (the same checks as ``assess merge``) and saves the
whole file atomically before it answers, so what the page shows as saved survives a closed
tab or a killed server, and a restarted server resumes from the file.

Hardening: the server listens on 127.0.0.1 only; a request whose ``Host`` is not this
server's loopback address is refused (DNS rebinding); a ``POST`` must carry the token that
only the page holds (a page of another site cannot judge) and a JSON body of at most
64 KiB; no other site may show the page in a frame (``Content-Security-Policy:
frame-ancestors 'none'`` and, for older browsers, ``X-Frame-Options: DENY``), so a page
the assessor opens cannot steer clicks onto the judging buttons.
"""
from __future__ import annotations

import json
import secrets
import threading
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path

from jinja2 import Environment, select_autoescape

from scorer.assessment.judgements import (
    SHAPE_OF_KIND,
    check_judgements,
    pool_items,
    save_judgements,
    with_judgement,
)

MAX_BODY = 64 * 1024


class Assessment:
    """The state of one assessor's session: the pool, the judgements, where they are saved."""

    def __init__(self, pool: dict, digest: str, judgements: dict, path: Path):
        self.pool, self.digest, self.judgements, self.path = pool, digest, judgements, path
        self.items = pool_items(pool)
        self.token = secrets.token_urlsafe(24)
        self.lock = threading.Lock()
        self.port = 0  # set by :func:`serve` once it listens

    def judge(self, key: object, judgement: object) -> tuple[int, dict]:
        """Check and save one judgement (None withdraws it): (HTTP status, answer)."""
        if not isinstance(key, str) or (judgement is not None and not isinstance(judgement, dict)):
            return 400, {"error": "send {\"key\": \"<question>/<item>\", \"judgement\": {...} or null}"}
        if judgement is not None:
            single = with_judgement({**self.judgements, "judgements": {}}, key, judgement)
            problems = check_judgements(single, self.pool, self.digest, str(self.path))
            if problems:
                return 422, {"error": problems[0].message, "fix": problems[0].fix}
        with self.lock:
            self.judgements = with_judgement(self.judgements, key, judgement)
            save_judgements(self.path, self.judgements)
            return 200, {"saved": key, "judged": len(self.judgements["judgements"]), "items": len(self.items)}


def page(assessment: Assessment) -> bytes:
    environment = Environment(autoescape=select_autoescape(default=True))
    source = resources.files("scorer.assessment").joinpath("templates/assess.html").read_text(encoding="utf-8")
    shapes = json.dumps(SHAPE_OF_KIND)
    return environment.from_string(source).render(
        token=assessment.token, assessor=assessment.judgements["assessor"], shapes=shapes,
        batch=f"{assessment.pool['task']} {assessment.pool['batch']} {assessment.pool['phase']}").encode("utf-8")


def handler_for(assessment: Assessment) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = "scorer-assess"

        def log_message(self, format: str, *args: object) -> None:  # quiet: the page shows progress
            return

        def _local(self) -> bool:
            host = self.headers.get("Host", "")
            return host in (f"127.0.0.1:{assessment.port}", f"localhost:{assessment.port}")

        def _send(self, status: int, body: bytes, kind: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.send_header("X-Content-Type-Options", "nosniff")
            self.send_header("Content-Security-Policy",
                             "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'unsafe-inline'; "
                             "connect-src 'self'; frame-ancestors 'none'")
            self.send_header("X-Frame-Options", "DENY")
            self.end_headers()
            self.wfile.write(body)

        def _json(self, status: int, value: Mapping) -> None:
            self._send(status, json.dumps(value).encode("utf-8"), "application/json")

        def do_GET(self) -> None:
            if not self._local():
                return self._json(403, {"error": "this server answers on 127.0.0.1 only"})
            if self.path == "/":
                return self._send(200, page(assessment), "text/html; charset=utf-8")
            if self.path == "/state":
                with assessment.lock:
                    return self._json(200, {"pool": assessment.pool, "judgements": assessment.judgements})
            return self._json(404, {"error": "not found"})

        def do_POST(self) -> None:
            if not self._local() or self.headers.get("X-Assess-Token") != assessment.token:
                return self._json(403, {"error": "not this page's request"})
            if self.path != "/judge":
                return self._json(404, {"error": "not found"})
            declared = self.headers.get("Content-Length") or "0"
            length = int(declared) if declared.isdigit() else 0
            if not 0 < length <= MAX_BODY:
                return self._json(413, {"error": f"a judgement is at most {MAX_BODY} bytes"})
            try:
                body = json.loads(self.rfile.read(length))
            except (ValueError, UnicodeDecodeError):
                return self._json(400, {"error": "the body is not JSON"})
            if not isinstance(body, dict):
                return self._json(400, {"error": "the body is not a JSON object"})
            self._json(*assessment.judge(body.get("key"), body.get("judgement")))

    return Handler


def serve(assessment: Assessment, port: int, ready=None) -> None:
    """Serve until interrupted; ``ready(url)`` is called once the port is open."""
    server = ThreadingHTTPServer(("127.0.0.1", port), handler_for(assessment))
    with server:
        assessment.port = server.server_port
        url = f"http://127.0.0.1:{assessment.port}/"
        if ready:
            ready(url)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
