"""Command line: python -m scorer validate | normalize | score (more to come)."""
from __future__ import annotations


def main(argv: list[str] | None = None) -> int:
    raise NotImplementedError
