"""``python -m scorer init DIR``: a new challenge repository, ready for ``import-bioasq``.

A challenge repository runs its own copy of the scorer: its workflows install it from the
repository (``pip install --no-deps --no-build-isolation .`` after the hash-pinned
``requirements/publish.lock``), so the check of a pull request always runs the scorer of
the base branch.  ``init`` therefore writes two kinds of files:

- from the source tree the scorer runs from (one source of truth, copied, never edited):
  the package ``scorer/``, ``pyproject.toml``, ``site_templates/``, ``requirements/`` (the
  lock files and ``lock.sh``), the three workflows of ``.github/workflows/`` and the pages
  of ``docs/`` that are for participants (:func:`scorer.site.docs.for_participants`);
- from ``scorer/templates/init/`` (package data): the commented ``challenge.toml`` with
  BioASQ's defaults, ``teams/example.toml.sample``, ``.gitignore`` and the organizers'
  ``README.md`` (the GitHub settings to make).

The source tree is the checkout of the scorer (an editable install or a clone); a scorer
installed from a wheel has no workflows or lock files to copy, and ``init`` says so.
"""
from __future__ import annotations

import argparse
import shlex
import shutil
from collections.abc import Iterable
from pathlib import Path

from scorer.cli.common import EXIT_INVALID, EXIT_OK, print_problems
from scorer.errors import Problem
from scorer.site.docs import for_participants

PACKAGE = Path(__file__).resolve().parent.parent
SOURCE_TREE = PACKAGE.parent
TEMPLATE = PACKAGE / "templates" / "init"
#: Copied from the source tree as they are (folders whole, but no caches).
FROM_SOURCE = ("pyproject.toml", "site_templates", "requirements", ".github/workflows")
#: Template file -> its path in the new repository.
FROM_TEMPLATE = {"challenge.toml": "challenge.toml", "README.md": "README.md", "gitignore": ".gitignore",
                 "teams/example.toml.sample": "teams/example.toml.sample"}
#: The template files that configure a challenge (``scripts/make_demo.py --clean`` writes them
#: in place of the demo's).
CONFIGURATION = ("challenge.toml", "teams/example.toml.sample")
_CACHES = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")


def source_problems(tree: Path = SOURCE_TREE) -> list[Problem]:
    """What the source tree lacks for ``init`` (a scorer installed from a wheel has none of it)."""
    return [Problem(code="no-source-tree", file=str(tree / name),
                    message=f"the scorer's source tree has no {name}, which a challenge repository needs",
                    fix="run init with the scorer of a clone of its repository: pip install --no-deps -e CLONE")
            for name in (*FROM_SOURCE, "docs") if not (tree / name).exists()]


def participant_docs(tree: Path = SOURCE_TREE) -> list[Path]:
    """The pages of ``docs/`` a challenge shows its participants, sorted."""
    return sorted(p for p in (tree / "docs").glob("*.md") if for_participants(p.stem))


def write_skeleton(target: Path, tree: Path = SOURCE_TREE) -> list[str]:
    """Write the new repository into ``target`` (absent or empty); return the files written,
    relative to it and sorted."""
    target.mkdir(parents=True, exist_ok=True)
    shutil.copytree(PACKAGE, target / "scorer", ignore=_CACHES)
    for name in FROM_SOURCE:
        source = tree / name
        if source.is_dir():
            shutil.copytree(source, target / name, ignore=_CACHES)
        else:
            shutil.copy2(source, target / name)
    (target / "docs").mkdir()
    for page in participant_docs(tree):
        shutil.copy2(page, target / "docs" / page.name)
    write_templates(target, FROM_TEMPLATE)
    return sorted(str(p.relative_to(target)) for p in target.rglob("*") if p.is_file())


def write_templates(target: Path, names: Iterable[str]) -> list[str]:
    """Copy the template files ``names`` (of :data:`FROM_TEMPLATE`) into ``target``, each
    unless a file is there already; return the paths written, relative to ``target``."""
    written = []
    for name in names:
        destination = target / FROM_TEMPLATE[name]
        if not destination.exists():
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(TEMPLATE / name, destination)
            written.append(FROM_TEMPLATE[name])
    return written


def cmd_init(args: argparse.Namespace) -> int:
    target = Path(args.dir)
    problems = source_problems()
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        problems.append(Problem(code="not-empty", file=str(target),
                                message="exists and is not an empty folder; init writes a new repository",
                                fix="name a new folder (init creates it) or an empty one"))
    if problems:
        print_problems(problems)
        return EXIT_INVALID
    files = write_skeleton(target)
    print(f"init: wrote a challenge repository of {len(files)} files in {target}\n"
          f"  next: edit {target / 'challenge.toml'}, then add each batch from BioASQ's files with\n"
          f"  run: python -m scorer import-bioasq --repo {shlex.quote(str(target))} --help\n"
          f"  and read {target / 'README.md'} for the GitHub settings to make")
    return EXIT_OK
