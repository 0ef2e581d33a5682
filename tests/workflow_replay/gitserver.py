"""Git over HTTP for the replay's "github.com": ``git http-backend`` behind ``http.server``.

Clones, fetches and pushes of the jobs go to ``GITHUB_SERVER_URL/<owner>/<name>`` as on
GitHub, with the token in an ``Authorization`` header (``actions/checkout``'s
``http.extraheader``, or ``ci publish``'s).  The server asks the platform whether the
token may read (``contents: read``; a public repository is readable by anyone) or push
(``contents: write``), and whether the refs a push updates are allowed (the ruleset of
``main``), then runs the CGI and tells the platform which refs moved (push events).
"""
from __future__ import annotations

import base64
import os
import re
import subprocess
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

BACKEND = subprocess.run(["git", "--exec-path"], capture_output=True, text=True).stdout.strip() + "/git-http-backend"


def token_of(header: str | None) -> str | None:
    """The token of an ``Authorization`` header (``basic`` x-access-token:TOKEN, ``bearer``
    or ``token`` TOKEN); None without one."""
    scheme, _, value = (header or "").partition(" ")
    if scheme.lower() == "basic":
        try:
            return base64.b64decode(value).decode().partition(":")[2] or None
        except ValueError:
            return None
    return value or None if scheme.lower() in ("bearer", "token") else None


def pushed_refs(body: bytes) -> list[tuple[str, str, str]]:
    """The (old, new, ref) commands at the start of a receive-pack request (pkt-lines up to
    the first flush)."""
    out, i = [], 0
    while i + 4 <= len(body):
        size = int(body[i:i + 4], 16)
        if size == 0:
            break
        line = body[i + 4:i + size].split(b"\0", 1)[0].decode().strip()
        old, new, ref = line.split(" ", 2)
        out.append((old, new, ref))
        i += size
    return out


class GitServer:
    """Serves the bare repositories under ``root`` (``<owner>/<name>.git``) on 127.0.0.1.

    ``access(token, what)`` says why ``token`` may not ``"read"`` or ``"write"`` (None: it may);
    ``check_push(token, commands)`` says why a push is refused (None: accepted);
    ``pushed(token, repo, moves)`` is told the refs a push moved: {ref: (before, after)}.
    """

    def __init__(self, root: Path, access: Callable, check_push: Callable, pushed: Callable):
        self.root, self.access, self.check_push, self.pushed = root, access, check_push, pushed
        self.lock = threading.Lock()  # one push at a time: the moved refs are read around it
        server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        server.daemon_threads = True
        server.app = self
        self.server = server
        self.url = f"http://127.0.0.1:{server.server_address[1]}"
        self.thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    def __enter__(self) -> GitServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)

    def refs(self, repo: Path) -> dict[str, str]:
        listing = subprocess.run(["git", "-C", str(repo), "for-each-ref", "--format=%(refname) %(objectname)"],
                                 capture_output=True, text=True, check=True).stdout
        return dict(line.split(" ", 1) for line in listing.splitlines() if line)

    def cgi(self, method: str, path: str, query: str, headers, body: bytes, token: str | None) -> bytes:
        """Run git http-backend for one request; its raw CGI output."""
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "GIT_PROJECT_ROOT": str(self.root),
               "GIT_HTTP_EXPORT_ALL": "1", "REQUEST_METHOD": method, "PATH_INFO": path, "QUERY_STRING": query,
               "CONTENT_TYPE": headers.get("Content-Type", ""), "CONTENT_LENGTH": str(len(body)),
               "REMOTE_ADDR": "127.0.0.1", "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull,
               "HOME": str(self.root)}
        if token:
            env["REMOTE_USER"] = "x-access-token"
        for header, variable in (("Git-Protocol", "GIT_PROTOCOL"), ("Content-Encoding", "HTTP_CONTENT_ENCODING")):
            if headers.get(header):
                env[variable] = headers[header]
        done = subprocess.run([BACKEND], input=body, capture_output=True, env=env, timeout=120)
        return done.stdout


def _read_body(handler: BaseHTTPRequestHandler) -> bytes:
    if handler.headers.get("Transfer-Encoding", "").lower() == "chunked":
        data = b""
        while True:
            size = int(handler.rfile.readline().strip().split(b";")[0], 16)
            if size == 0:
                handler.rfile.readline()
                return data
            data += handler.rfile.read(size)
            handler.rfile.readline()
    return handler.rfile.read(int(handler.headers.get("Content-Length") or 0))


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def _refuse(self, status: int, message: str) -> None:
        data = (message + "\n").encode()
        self.send_response(status)
        if status == 401:
            self.send_header("WWW-Authenticate", 'Basic realm="GitHub"')
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _answer(self) -> None:
        app: GitServer = self.server.app
        parts = urlsplit(self.path)
        body = _read_body(self) if self.command == "POST" else b""
        token = token_of(self.headers.get("Authorization"))
        repo_match = re.match(r"(/[^/]+/[^/]+?)(?:\.git)?(/.*)$", parts.path)
        if not repo_match:
            return self._refuse(404, "Repository not found.")
        repo_path, rest = repo_match.group(1) + ".git", repo_match.group(2)
        repo = app.root / repo_path.lstrip("/")
        if not repo.is_dir():
            return self._refuse(404, "Repository not found.")
        write = "git-receive-pack" in rest or "service=git-receive-pack" in parts.query
        refused = app.access(token, "write" if write else "read")
        if refused:
            return self._refuse(401 if token is None else 403, refused)
        commands = pushed_refs(body) if rest.endswith("/git-receive-pack") else []
        if commands:
            refused = app.check_push(token, commands)
            if refused:
                return self._refuse(403, refused)
            with app.lock:
                before = app.refs(repo)
                out = app.cgi(self.command, repo_path + rest, parts.query, self.headers, body, token)
                after = app.refs(repo)
            moves = {ref: (before.get(ref), after.get(ref)) for ref in set(before) | set(after)
                     if before.get(ref) != after.get(ref)}
        else:
            out = app.cgi(self.command, repo_path + rest, parts.query, self.headers, body, token)
            moves = {}
        if moves:  # told before the client hears back, so the push event exists when its push returns
            app.pushed(token, moves)
        head, _, payload = out.partition(b"\r\n\r\n")
        status = 200
        headers = []
        for line in head.decode("latin-1").split("\r\n"):
            name, _, value = line.partition(":")
            if name.lower() == "status":
                status = int(value.split()[0])
            elif name:
                headers.append((name, value.strip()))
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    do_GET = do_POST = _answer

    def log_message(self, *args) -> None:
        pass
