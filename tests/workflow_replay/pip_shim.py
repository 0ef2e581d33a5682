"""The replay's ``pip`` (and ``python -m pip``) inside a job: installs nothing from the network.

It accepts the two installs the workflows make and refuses any other:

* ``install --require-hashes -r <lock>``: the lock file must exist and every requirement
  in it must carry ``--hash``; the packages it names must already be installed in the
  interpreter that runs the replay (their versions are not compared);
* ``install --no-deps --no-build-isolation <folder>``: the folder must hold a
  ``pyproject.toml``; the packages its ``[tool.setuptools.packages.find] include`` names
  are "installed" by linking them into the job's site folder (first on the job's
  ``sys.path``), so the job runs the scorer of the commit it checked out; and, as pip
  byte-compiles what it installs, their modules are compiled into their ``__pycache__``:
  with ``REPLAY_BYTECODE`` set (the runner sets it), each from that folder when a job
  compiled the same source before (a checked-hash ``.pyc``, PEP 552: valid for any file
  with that source, wherever it is; Python checks the source's hash when importing it).

Usage: ``pip_shim.py SITE ARGS...`` (SITE: the job's site folder).
"""
from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import os
import py_compile
import re
import shutil
import sys
import tomllib
from pathlib import Path

OPTIONS = {"--quiet", "-q", "--require-hashes", "--no-deps", "--no-build-isolation", "--disable-pip-version-check"}


def requirements(lock: Path) -> list[tuple[str, bool]]:
    """(name, has a hash) of each requirement of ``lock`` (continuation lines joined)."""
    text = re.sub(r"\\\n", " ", lock.read_text(encoding="utf-8"))
    out = []
    for line in text.splitlines():
        line = line.split(" #", 1)[0].strip()
        if line and not line.startswith("#"):
            out.append((re.split(r"[=<>!~;\[ ]", line, maxsplit=1)[0], "--hash=" in line))
    return out


def install_lock(lock: Path, hashes: bool) -> str | None:
    if not lock.is_file():
        return f"ERROR: Could not open requirements file: [Errno 2] No such file or directory: '{lock}'"
    found = requirements(lock)
    if not hashes:
        return "the replay refuses a lock installed without --require-hashes"
    unhashed = [name for name, hashed in found if not hashed]
    if unhashed:
        return f"ERROR: Hashes are required in --require-hashes mode, but they are missing: {', '.join(unhashed)}"
    missing = []
    for name, _ in found:
        try:
            importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            missing.append(name)
    return f"the replay cannot install {', '.join(missing)} offline (not installed here)" if missing else None


def install_folder(folder: Path, site: Path, options: set[str]) -> str | None:
    if not {"--no-deps", "--no-build-isolation"} <= options:
        return f"the replay refuses to install {folder} without --no-deps --no-build-isolation (that downloads)"
    project = folder / "pyproject.toml"
    if not project.is_file():
        return f"ERROR: Directory '{folder}' is not installable. Neither 'setup.py' nor 'pyproject.toml' found."
    config = tomllib.loads(project.read_text(encoding="utf-8"))
    includes = config.get("tool", {}).get("setuptools", {}).get("packages", {}).get("find", {}).get("include", [])
    packages = sorted({i.rstrip("*").rstrip(".") for i in includes if "." not in i.rstrip("*").rstrip(".")})
    if not packages:
        return f"the replay cannot tell which packages {project} installs ([tool.setuptools.packages.find] include)"
    for package in packages:
        source, target = folder.resolve() / package, site / package
        if not (source / "__init__.py").is_file():
            return f"{project} names the package {package}, which {folder} lacks"
        if target.is_symlink() or target.is_file():
            target.unlink()
        elif target.is_dir():
            shutil.rmtree(target)
        target.symlink_to(source, target_is_directory=True)
        if os.environ.get("REPLAY_BYTECODE"):
            byte_compile(source, Path(os.environ["REPLAY_BYTECODE"]))
    return None


def byte_compile(package: Path, store: Path) -> None:
    """Every module of ``package`` compiled into its ``__pycache__`` as a checked-hash
    ``.pyc``, copied from ``store`` (``<SHA-256 of the source>.pyc``) when there, else
    compiled and kept there too (written whole, then renamed: jobs of other test processes
    share ``store``).  A module that does not compile is left to fail when imported, as
    pip leaves it."""
    store.mkdir(parents=True, exist_ok=True)
    for source in sorted(package.rglob("*.py")):
        kept = store / f"{hashlib.sha256(source.read_bytes()).hexdigest()}.pyc"
        if not kept.is_file():
            partial = store / f"{kept.name}.{os.getpid()}"
            try:
                py_compile.compile(str(source), cfile=str(partial), doraise=True,
                                   invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH)
            except py_compile.PyCompileError:
                continue
            os.replace(partial, kept)
        compiled = Path(importlib.util.cache_from_source(str(source)))
        compiled.parent.mkdir(exist_ok=True)
        shutil.copyfile(kept, compiled)


def main(argv: list[str]) -> int:
    site, args = Path(argv[0]), argv[1:]
    if not args or args[0] != "install":
        print(f"the replay's pip only installs (pip {' '.join(args)})", file=sys.stderr)
        return 2
    options, locks, folders, i = set(), [], [], 1
    while i < len(args):
        arg = args[i]
        if arg in ("-r", "--requirement"):
            locks.append(Path(args[i + 1]))
            i += 2
            continue
        if arg in OPTIONS:
            options.add(arg)
        elif arg.startswith("-"):
            print(f"the replay's pip does not model the option {arg}", file=sys.stderr)
            return 2
        else:
            folders.append(Path(arg))
        i += 1
    if locks and folders or not (locks or folders):
        print("the replay's pip installs either -r LOCK or one folder", file=sys.stderr)
        return 2
    for lock in locks:
        error = install_lock(lock, "--require-hashes" in options)
        if error:
            print(error, file=sys.stderr)
            return 1
    for folder in folders:
        error = install_folder(folder, site, options)
        if error:
            print(error, file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
