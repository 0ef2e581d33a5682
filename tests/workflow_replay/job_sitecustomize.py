"""Copied into each replay job's site folder as ``sitecustomize.py``: PyGithub clients of
the job do not pause between requests (GitHub's client-side throttle, 0.25 s per read
and 1 s per write, is for github.com; the replay's API is local).  Nothing else changes."""
import importlib.abc
import importlib.machinery
import sys


class _Unthrottled(importlib.abc.MetaPathFinder):
    """Wraps ``github.MainClass`` on import so ``Github(...)`` defaults to no throttle."""

    def find_spec(self, name, path, target=None):
        if name != "github.MainClass":
            return None
        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return spec
        execute = spec.loader.exec_module

        def exec_module(module):
            execute(module)
            init = module.Github.__init__

            def unthrottled(self, *args, **kwargs):
                kwargs.setdefault("seconds_between_requests", None)
                kwargs.setdefault("seconds_between_writes", None)
                init(self, *args, **kwargs)
            module.Github.__init__ = unthrottled
        spec.loader.exec_module = exec_module
        return spec


sys.meta_path.insert(0, _Unthrottled())
