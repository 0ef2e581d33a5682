"""``python -m scorer init DIR``: a new challenge repository, ready for ``import-bioasq``.

A challenge repository runs its own copy of the scorer: its workflows install it from the
repository (``pip install --no-deps --no-build-isolation .`` after the hash-pinned
``requirements/publish.lock``), so the check of a pull request always runs the scorer of
the base branch.  ``init`` therefore writes two kinds of files:

- from the scorer's source tree (one source of truth, copied, never edited): the package
  ``scorer/`` and the entries of ``templates/init/from-source.txt``: ``pyproject.toml``,
  ``setup.py``, ``site_templates/``, ``requirements/`` (the lock files and ``lock.sh``),
  the three workflows of ``.github/workflows/`` and the pages of ``docs/`` that are for
  participants (:data:`scorer.site.docs.PARTICIPANT_PAGES`: no page for organizers or the
  scorer's maintainers, such as testing or architecture);
- from ``scorer/templates/init/`` (package data): the commented ``challenge.toml`` with
  BioASQ's defaults, ``teams/example.toml.sample``, ``.gitignore`` and the organizers'
  ``README.md`` (the GitHub settings to make).

The source tree is the checkout the scorer runs from (an editable install or a clone) or,
for a scorer installed from a wheel, the copy of those entries the wheel's build put in
``scorer/.skeleton/`` (``setup.py``).
"""
from __future__ import annotations

import argparse
import shlex
import shutil
from collections.abc import Iterable
from pathlib import Path

from scorer.cli.common import EXIT_INVALID, EXIT_OK, print_problems
from scorer.core.errors import Problem
from scorer.site.docs import PARTICIPANT_PAGES

PACKAGE = Path(__file__).resolve().parent.parent
TEMPLATE = PACKAGE / "templates" / "init"
#: The wheel's copy of the source tree's entries (written by setup.py at build time).
SKELETON = PACKAGE / ".skeleton"
#: Copied from the source tree as they are (folders whole, but no caches; of docs/, the
#: participants' pages): the lines of ``templates/init/from-source.txt``, which setup.py reads too.
FROM_SOURCE = tuple(line.strip() for line in (TEMPLATE / "from-source.txt").read_text(encoding="utf-8").splitlines()
                    if line.strip() and not line.startswith("#"))
#: Template file -> its path in the new repository.
FROM_TEMPLATE = {"challenge.toml": "challenge.toml", "README.md": "README.md", "gitignore": ".gitignore",
                 "teams/example.toml.sample": "teams/example.toml.sample"}
#: The template files that configure a challenge (``scripts/make_demo.py --clean`` writes them
#: in place of the demo's).
CONFIGURATION = ("challenge.toml", "teams/example.toml.sample")
_CACHES = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", SKELETON.name)


def source_problems(tree: Path) -> list[Problem]:
    """What the source tree lacks for ``init``."""
    return [Problem(code="no-source-tree", file=str(tree / name),
                    message=f"the scorer's source tree has no {name}, which a challenge repository needs",
                    fix="run init with a scorer installed from its repository: pip install --no-deps CLONE "
                        "(or -e CLONE), not from an archive without these files")
            for name in FROM_SOURCE if not (tree / name).exists()]


def source_tree() -> Path:
    """The checkout the package sits in when it has every entry of :data:`FROM_SOURCE`
    (an editable install, a clone on the path), else the wheel's :data:`SKELETON`."""
    checkout = PACKAGE.parent
    return checkout if not source_problems(checkout) else SKELETON


def participant_docs(tree: Path) -> list[Path]:
    """The pages of ``docs/`` that ``init`` copies for participants (:data:`PARTICIPANT_PAGES`), sorted."""
    return sorted(p for p in (tree / "docs").glob("*.md") if p.stem in PARTICIPANT_PAGES)


def write_skeleton(target: Path, tree: Path) -> list[str]:
    """Write the new repository into ``target`` (absent or empty) from the source ``tree``
    (:func:`source_tree`); return the files written, relative to it and sorted."""
    target.mkdir(parents=True, exist_ok=True)
    shutil.copytree(PACKAGE, target / "scorer", ignore=_CACHES)
    for name in FROM_SOURCE:
        source = tree / name
        if name == "docs":
            (target / "docs").mkdir()
            for page in participant_docs(tree):
                shutil.copy2(page, target / "docs" / page.name)
        elif source.is_dir():
            shutil.copytree(source, target / name, ignore=_CACHES)
        else:
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
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
    tree = source_tree()
    problems = source_problems(tree)
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        problems.append(Problem(code="not-empty", file=str(target),
                                message="exists and is not an empty folder; init writes a new repository",
                                fix="name a new folder (init creates it) or an empty one"))
    if problems:
        print_problems(problems)
        return EXIT_INVALID
    files = write_skeleton(target, tree)
    print(f"init: wrote a challenge repository of {len(files)} files in {target}\n"
          f"  next: edit {target / 'challenge.toml'}, then add each batch from BioASQ's files with\n"
          f"  run: python -m scorer import-bioasq --repo {shlex.quote(str(target))} --help\n"
          f"  and read {target / 'README.md'} for the GitHub settings to make")
    return EXIT_OK
