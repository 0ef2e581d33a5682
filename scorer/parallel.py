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
  which its owner can kill;
* :func:`isolated_map`: ``function`` of each item in :class:`Worker` processes, an item
  whose process dies or overruns its time budget replaced by a stand-in result
  (``score-all``'s runs and batch tables: one item's failure never stops another).
"""
from __future__ import annotations

import multiprocessing
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from multiprocessing.connection import Connection, wait
from multiprocessing.pool import Pool
from typing import Any


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


def isolated_map(function: Callable[[Any], Any], items: Sequence, workers: int, crashed: Callable[[int, int | None], Any],
                 seconds: float | None = None, expired: Callable[[int], Any] | None = None) -> Iterator[tuple[int, Any]]:  # complexity 17: one scheduling loop (start, collect, expire) over shared state
    """(k, ``function(items[k])``) for every item as it finishes, in at most ``workers``
    forked :class:`Worker` processes (each computes one item after another, keeping what
    it cached; items are not pickled: a worker reads them from the memory it was forked
    with, only the results travel back).  An item still running after ``seconds`` (None:
    no limit; else ``expired`` is required) has its worker killed and gives ``expired(k)``, and a new worker takes its
    place; an item whose worker dies gives ``crashed(k, exit code)``.  Without ``fork``
    (or when no worker process can be started) an item is computed here, without a time
    limit and without protection against the process dying."""
    context = fork_context()
    if context is None:
        yield from ((k, function(item)) for k, item in enumerate(items))
        return
    waiting = list(range(len(items)))[::-1]
    idle: list[Worker] = []
    busy: dict[Connection, tuple[Worker, int, float]] = {}  # connection -> (worker, k, deadline)
    limit = float("inf") if seconds is None else seconds
    try:
        while waiting or busy:
            while waiting and len(busy) < max(1, workers):
                k = waiting.pop()
                try:
                    worker = idle.pop() if idle else Worker(context, lambda i: function(items[i]))
                    worker.connection.send(k)
                except OSError:  # no process to be had (limits of the machine): compute it here
                    yield k, function(items[k])
                    continue
                busy[worker.connection] = (worker, k, time.monotonic() + limit)
            if not busy:
                continue
            first = min(deadline for _, _, deadline in busy.values())
            timeout = None if first == float("inf") else max(0.0, first - time.monotonic())
            for connection in wait(list(busy), timeout=timeout):
                assert isinstance(connection, Connection), "wait returns some of the connections it is given"
                worker, k, _ = busy.pop(connection)
                try:
                    result = connection.recv()
                    idle.append(worker)
                except (EOFError, OSError):
                    worker.stop()
                    result = crashed(k, worker.process.exitcode)
                yield k, result
            now = time.monotonic()
            for connection, (worker, k, deadline) in list(busy.items()):
                if now >= deadline:
                    del busy[connection]
                    worker.stop()
                    assert expired is not None, "an item can expire only when seconds is given, and expired with it"
                    yield k, expired(k)
    finally:
        for worker in idle + [worker for worker, _, _ in busy.values()]:
            worker.stop()
