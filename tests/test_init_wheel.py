"""``python -m scorer init`` from a scorer installed from its wheel (not a checkout) writes
the same skeleton: the wheel carries the workflows, locks, site templates, docs,
pyproject.toml and setup.py (``setup.py`` copies them into ``scorer/.skeleton/`` at build
time).  Builds the wheel (offline, no build isolation: setuptools is installed), installs it
into a fresh virtual environment that sees this one's dependencies, and runs ``init`` there.
About 20 s; not in the README's quick subset (tests/test_init.py has the checkout's case)."""
from __future__ import annotations

import shutil
import site
import subprocess
import sys
import tarfile
import venv
import zipfile
from pathlib import Path

import pytest

from scorer.cli.init import FROM_SOURCE, participant_docs
from scorer.fingerprint import source_digest
from tests.conftest import ROOT


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and "__pycache__" not in p.parts}


def _tree_copy(target: Path) -> Path:
    """The files a wheel is built from (the package, README.md for its metadata and every
    entry of from-source.txt), copied so that the build writes nothing into the checkout."""
    for name in ("scorer", "README.md", *FROM_SOURCE):
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, target / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target


def test_init_from_an_installed_wheel_writes_the_workflows_and_locks(tmp_path):
    pytest.importorskip("setuptools", reason="the wheel is built without isolation: setuptools must be installed")
    tree = _tree_copy(tmp_path / "tree")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                    "--no-index", "--wheel-dir", str(tmp_path / "dist"), str(tree)], check=True, cwd=tmp_path)
    (wheel,) = (tmp_path / "dist").glob("*.whl")
    env = tmp_path / "venv"
    venv.create(env, with_pip=False)
    python = env / "bin" / "python"
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-deps",
                    "--no-index", str(wheel)], check=True, cwd=tmp_path)
    # this environment's dependencies (numpy, jinja2, ...), after the wheel's own site-packages;
    # a path in a .pth file runs none of the .pth files there (this checkout's editable install)
    (purelib,) = env.glob("lib/python*/site-packages")
    (purelib / "dependencies.pth").write_text("\n".join(site.getsitepackages()) + "\n", encoding="utf-8")

    where = subprocess.run([str(python), "-c", "import scorer; print(scorer.__file__)"], cwd=tmp_path,
                           capture_output=True, text=True, check=True).stdout.strip()
    assert Path(where).is_relative_to(purelib), where  # the wheel's scorer, not this checkout's
    done = subprocess.run([str(python), "-m", "scorer", "init", "new"], cwd=tmp_path, capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    repo = tmp_path / "new"
    for name in (".github/workflows", "requirements", "site_templates"):
        assert _files(repo / name) == _files(ROOT / name), name
    assert sorted(p.name for p in (repo / ".github/workflows").iterdir()) == ["check.yml", "publish.yml",
                                                                              "report.yml"]
    assert {"ci.lock", "publish.lock", "lock.sh"} <= set(_files(repo / "requirements"))
    for name in ("pyproject.toml", "setup.py"):
        assert (repo / name).read_bytes() == (ROOT / name).read_bytes(), name
    assert sorted(p.name for p in (repo / "docs").iterdir()) == [p.name for p in participant_docs(ROOT)]
    assert (repo / "challenge.toml").is_file() and (repo / "teams" / "example.toml.sample").is_file()
    # the package itself: the installed one, without the wheel's copy of the source tree
    assert _files(repo / "scorer") == _files(ROOT / "scorer")
    # and that copy (hidden) leaves the scorer's digest alone: a page of docs rescores nothing
    installed = subprocess.run([str(python), "-c", "from scorer.fingerprint import PACKAGE, source_digest; "
                                "print(source_digest(PACKAGE))"], cwd=tmp_path, capture_output=True, text=True,
                               check=True).stdout.strip()
    assert (purelib / "scorer" / ".skeleton" / "docs").is_dir() and installed == source_digest(ROOT / "scorer")


def test_a_wheel_built_from_the_sdist_carries_the_skeleton_too(tmp_path):
    """``python -m build`` makes the wheel from the sdist: the sdist holds the entries of
    from-source.txt (setup.py's sdist), so that wheel has them in scorer/.skeleton/ too."""
    pytest.importorskip("setuptools", reason="the archives are built with the installed setuptools")
    tree = _tree_copy(tmp_path / "tree")
    build = "import sys; from setuptools import build_meta; print(build_meta.build_{}(sys.argv[1]))"
    sdist = subprocess.run([sys.executable, "-c", build.format("sdist"), str(tmp_path / "dist")], cwd=tree,
                           capture_output=True, text=True, check=True).stdout.strip().splitlines()[-1]
    with tarfile.open(tmp_path / "dist" / sdist) as archive:
        archive.extractall(tmp_path / "unpacked", filter="data")
    (unpacked,) = (tmp_path / "unpacked").iterdir()
    wheel = subprocess.run([sys.executable, "-c", build.format("wheel"), str(tmp_path / "dist")], cwd=unpacked,
                           capture_output=True, text=True, check=True).stdout.strip().splitlines()[-1]
    with zipfile.ZipFile(tmp_path / "dist" / wheel) as archive:
        shipped = {name.removeprefix("scorer/.skeleton/"): archive.read(name) for name in archive.namelist()
                   if name.startswith("scorer/.skeleton/")}
    for name in (".github/workflows", "requirements", "site_templates"):
        expected = {f"{name}/{path}": data for path, data in _files(ROOT / name).items()}
        assert {k: v for k, v in shipped.items() if k.startswith(name + "/")} == expected, name
    assert shipped["setup.py"] == (ROOT / "setup.py").read_bytes() and "docs/submit.md" in shipped
