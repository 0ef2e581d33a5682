"""The build hook of the scorer's wheel (the rest of the configuration is pyproject.toml).

``python -m scorer init`` copies the workflows, the lock files, the site templates, the
participants' docs, pyproject.toml and this file into a new challenge repository.  They
live at the top of the repository (GitHub reads workflows only from ``.github/workflows``),
outside the package, where ``[tool.setuptools.package-data]`` cannot reach; so the wheel's
``build_py`` copies each entry of ``scorer/templates/init/from-source.txt`` into
``scorer/.skeleton/`` of the build (and ``sdist`` puts them in the archive, for a wheel
built from it).  Generated at each build, never edited or committed:
the repository's files stay the one copy.  An editable install reads the checkout itself
and gets none.  A hidden folder, so the scorer's source digest (``scorer/fingerprint.py``)
does not change with a page of docs.
"""
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist

HERE = Path(__file__).resolve().parent
LIST = HERE / "scorer" / "templates" / "init" / "from-source.txt"
SKELETON = Path("scorer") / ".skeleton"


def skeleton_entries() -> list[str]:
    """The files and folders of ``from-source.txt`` (comments and blank lines left out)."""
    lines = (line.strip() for line in LIST.read_text(encoding="utf-8").splitlines())
    return [line for line in lines if line and not line.startswith("#")]


def copy_entries(target: Path) -> None:
    """Copy every skeleton entry of this tree into ``target`` (folders whole, no caches;
    an entry the tree lacks is left out: ``init`` names what is missing).  A file already
    in ``target`` is kept (an sdist's tree holds setup.py, perhaps as a hard link)."""
    for name in skeleton_entries():
        source = HERE / name
        if source.is_dir():
            shutil.copytree(source, target / name, dirs_exist_ok=True, copy_function=_copy_new,
                            ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info"))
        elif source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            _copy_new(source, target / name)


def _copy_new(source: str | Path, destination: str | Path) -> None:
    if not Path(destination).exists():
        shutil.copy2(source, destination)


class BuildWithSkeleton(build_py):
    """``build_py``, then the source tree's skeleton entries into ``scorer/.skeleton/``."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        target = Path(self.build_lib) / SKELETON
        shutil.rmtree(target, ignore_errors=True)
        copy_entries(target)


class SdistWithSkeleton(sdist):
    """``sdist``, with the skeleton entries at their places in the archive's tree, so that
    a wheel built from the sdist (``python -m build``) carries them too."""

    def make_release_tree(self, base_dir: str, files: list[str]) -> None:
        super().make_release_tree(base_dir, files)
        copy_entries(Path(base_dir))


setup(cmdclass={"build_py": BuildWithSkeleton, "sdist": SdistWithSkeleton})
