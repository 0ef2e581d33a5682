"""The commands on a challenge repository: ``score-all``, ``build`` and ``serve``."""
from __future__ import annotations

import argparse
import json
import math
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
from scorer.core.errors import Problem

#: The most shard jobs ``score-all --plan-shards`` asks for (each is a runner of its own).
MAX_SHARDS = 16


def shard_arg(text: str) -> tuple[int, int]:
    """``--shard K/N`` as (k, n): integers with 1 <= K <= N; else an argparse error naming the option."""
    k, slash, n = text.partition("/")
    if not (slash and k.strip().isdigit() and n.strip().isdigit()) or not 1 <= int(k) <= int(n):
        raise argparse.ArgumentTypeError(f"{text!r} is not K/N with whole numbers 1 <= K <= N (e.g. --shard 2/3)")
    return int(k), int(n)


def shard_plan(missing: int, shard_runs: int, most: int = MAX_SHARDS) -> list[int]:
    """The shards 1..N to score ``missing`` runs in, about ``shard_runs`` runs each and at
    most ``most`` shards; [] when ``missing`` <= ``shard_runs`` (one job scores them)."""
    if missing <= shard_runs:
        return []
    return list(range(1, min(math.ceil(missing / shard_runs), most) + 1))


def cmd_score_all(args: argparse.Namespace) -> int:
    from scorer.formats.challenge import load_challenge
    from scorer.store import score_all
    shard, reuse_only, plan = args.shard, args.reuse_only, args.plan_shards
    summary = score_all(args.repo, jobs=args.jobs, shard=shard, reuse_only=reuse_only or plan)
    if plan:  # standard output: the JSON list alone, for the workflow's matrix
        print(f"score-all: {len(summary.missing)} run(s) need scoring", file=sys.stderr)
        print(json.dumps(shard_plan(len(summary.missing), load_challenge(args.repo).limits.shard_runs)))
        return EXIT_OK
    print_problems(summary.warnings)
    for path in summary.missing:
        print(f"{path}: needs scoring (--reuse-only: not scored)", file=sys.stderr)
    for path in summary.failed:
        print(f"{path}: not scored", file=sys.stderr)
        print_problems([Problem(**p) for p in summary.problems[path]], per_code=PROBLEMS_PER_KIND)
    for path, problems in summary.tables_failed.items():
        print(f"{path}: not computed (written as this table's error; every other table is written)", file=sys.stderr)
        print_problems([Problem(**p) for p in problems])
    where = f"shard {shard[0]}/{shard[1]}: " if shard else ""
    tables = ("no batch tables (a shard)" if shard else "nothing written (runs need scoring)" if summary.missing
              else f"{len(summary.tables_computed)} batch table(s) computed, {len(summary.tables_reused)} reused"
              + (f", {len(summary.tables_failed)} failed" if summary.tables_failed else ""))
    print(f"score-all: {where}{summary.counts()}"
          f"{f', {len(summary.missing)} need scoring' if reuse_only else ''}; {tables}")
    if reuse_only:  # the question asked: does every run have its result (or error) file?
        return EXIT_INVALID if summary.missing else EXIT_OK
    if shard:  # a shard's work is its files: a run that failed has its error file, reported by the merge
        return EXIT_OK
    return EXIT_OK if summary.ok else EXIT_INVALID


def cmd_build(args: argparse.Namespace) -> int:
    from scorer.site.build import build_site
    failed = False
    if not args.no_score:
        failed = cmd_score_all(argparse.Namespace(repo=args.repo, jobs=args.jobs, shard=None, reuse_only=False,
                                                          plan_shards=False)) != EXIT_OK
    summary = build_site(args.repo, args.out, templates=args.templates, docs=args.docs, jobs=args.jobs)
    print_problems(summary.warnings)  # e.g. a run card that cannot be used: shown as not disclosed
    print(f"build: {summary.pages} pages, {len(summary.files)} files in {summary.out}; "
          f"open {summary.out / 'index.html'}, or\n  run: python -m scorer serve --out {shlex.quote(str(summary.out))}")
    if failed:
        print("build: some runs or tables could not be scored; their pages say why", file=sys.stderr)
    return EXIT_OK


def cmd_serve(args: argparse.Namespace) -> int:
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
