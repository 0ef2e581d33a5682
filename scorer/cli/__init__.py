"""Command line front end: ``python -m scorer <command> ...``.

Exit codes: 0 = ok, 1 = the input is invalid or a check failed, 2 = usage error.
No traceback reaches the user: every problem is printed as ``file:line:col: ...`` with
a fix.

One module per concern: ``files`` (validate, normalize), ``score`` (score RUN...),
``detect`` (which task a file is for), ``leaderboard``
(score-all, build, serve), ``ci`` (the workflow commands), ``parser`` (the arguments and
``main``), ``common`` (exit codes, printing problems).
"""
from scorer.cli.parser import build_parser, main

__all__ = ["build_parser", "main"]
