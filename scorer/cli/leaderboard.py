"""The commands on a challenge repository: ``score-all``, ``build`` and ``serve``."""
from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from scorer.cli.common import (
    EXIT_INVALID,
    EXIT_OK,
    EXIT_USAGE,
    PROBLEMS_PER_KIND,
    print_problems,
)
from scorer.errors import Problem


def cmd_score_all(args) -> int:
    from scorer.store import score_all
    summary = score_all(args.repo, jobs=args.jobs)
    print_problems(summary.warnings)
    for path in summary.failed:
        print(f"{path}: not scored", file=sys.stderr)
        print_problems([Problem(**p) for p in summary.problems[path]], per_code=PROBLEMS_PER_KIND)
    print(f"score-all: {len(summary.scored)} scored, {len(summary.reused)} reused, {len(summary.failed)} failed, "
          f"{len(summary.awaiting_gold)} awaiting gold, {len(summary.late)} late; "
          f"{len(summary.tables_computed)} batch table(s) computed, {len(summary.tables_reused)} reused")
    return EXIT_OK if summary.ok else EXIT_INVALID


def cmd_build(args) -> int:
    from scorer.site.build import build_site
    failed = False
    if not args.no_score:
        failed = cmd_score_all(argparse.Namespace(repo=args.repo, jobs=args.jobs)) != EXIT_OK
    summary = build_site(args.repo, args.out, templates=args.templates, docs=args.docs, jobs=args.jobs)
    print(f"build: {summary.pages} pages, {len(summary.files)} files in {summary.out}; "
          f"open {summary.out / 'index.html'}, or\n  run: python -m scorer serve --out {shlex.quote(str(summary.out))}")
    if failed:
        print("build: some runs could not be scored; their pages say why", file=sys.stderr)
    return EXIT_OK


def cmd_serve(args) -> int:
    import functools
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
    folder = Path(args.out) if args.out else Path(args.repo) / "_site"
    if not (folder / "index.html").is_file():
        print(f"serve: {folder} has no index.html; build the site first\n"
              f"  run: python -m scorer build --repo {shlex.quote(args.repo)}", file=sys.stderr)
        return EXIT_INVALID
    handler = functools.partial(SimpleHTTPRequestHandler, directory=str(folder))
    try:
        server = ThreadingHTTPServer(("127.0.0.1", args.port), handler)
    except OSError as exc:  # the port is taken, or needs privileges
        print(f"serve: cannot listen on 127.0.0.1:{args.port}: {exc.strerror or exc}\n"
              f"    fix: pick another port (--port 0 picks a free one)\n"
              f"  run: python -m scorer serve --out {shlex.quote(str(folder))} --port 0", file=sys.stderr)
        return EXIT_USAGE
    with server:
        print(f"serving {folder} at http://127.0.0.1:{server.server_address[1]}/ (Ctrl+C stops)")
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
    return EXIT_OK
