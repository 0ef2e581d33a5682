"""The one process-pool helper: forked processes, and this process where there are none.

Every user forks (the children inherit what the parent computed or cached, nothing is
pickled but the items and results), and every user keeps working where processes
cannot be had: without the ``fork`` start method (Windows, some sandboxes) or when the
machine refuses to start one (``OSError``), the work runs in this process, with the
same results.

* :func:`fork_map`: ``[function(x) for x in items]`` over a pool (Task A's LCA sizes);
* :func:`forked_pool`: a pool to overlap with other work, or ``None`` (the site's
  drill-down pages);
* :class:`Worker`: one long-lived forked process applying a function to what it is sent,
  which its owner can kill (``score-all``'s isolated runs with a time budget).
"""
from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from multiprocessing.pool import Pool


def fork_context():
    """The ``fork`` multiprocessing context, or None where the platform has none."""
    try:
        return multiprocessing.get_context("fork")
    except ValueError:
        return None


@contextmanager
def forked_pool(workers: int, initializer: Callable | None = None, initargs: tuple = ()) -> Iterator[Pool | None]:
    """A pool of ``workers`` forked processes (each first runs ``initializer(*initargs)``),
    terminated on exit; ``None`` when there is no ``fork`` or the processes cannot be
    started, so the caller does the work itself."""
    context = fork_context()
    try:
        pool = context.Pool(workers, initializer, initargs) if context is not None else None
    except OSError:
        pool = None
    if pool is None:
        yield None
        return
    with pool:
        yield pool


def fork_map(function: Callable, items: Iterable, workers: int) -> list:
    """``[function(x) for x in items]``, in order, computed in up to ``workers`` forked
    processes (one item at a time each); in this process when ``workers`` or the number
    of items is below 2, or when no process can be started."""
    items = list(items)
    workers = min(workers, len(items))
    if workers > 1:
        with forked_pool(workers) as pool:
            if pool is not None:
                return pool.map(function, items, chunksize=1)
    return [function(item) for item in items]


class Worker:
    """A forked process that applies ``function`` to each object sent on :attr:`connection`
    and sends back the result, until the pipe closes or :meth:`stop` kills it.

    ``context`` is :func:`fork_context`'s; starting raises ``OSError`` when the machine
    cannot start a process."""

    def __init__(self, context, function: Callable):
        self.connection, theirs = context.Pipe()
        self.process = context.Process(target=_serve, args=(theirs, function), daemon=True)
        try:
            self.process.start()
        except BaseException:
            self.connection.close()
            raise
        finally:
            theirs.close()

    def stop(self) -> None:
        """Kill the process (if alive), reap it and close the pipe."""
        if self.process.is_alive():
            self.process.kill()
        self.process.join()
        self.connection.close()


def _serve(connection, function: Callable) -> None:
    """The loop of a :class:`Worker`: until the pipe closes, receive an object, send ``function`` of it."""
    while True:
        try:
            item = connection.recv()
        except EOFError:
            return
        connection.send(function(item))
