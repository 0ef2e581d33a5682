"""Array helpers of the measures: sorting, membership and ranges over integer arrays.

Small pure numpy functions shared by the flat, hierarchical and LCA measures and by the
label hierarchy (:mod:`scorer.measures.dag`); nothing here knows what the integers stand for.
"""
from __future__ import annotations

import numpy as np


def sorted_unique(values: np.ndarray) -> np.ndarray:
    """The distinct values, sorted (``np.unique`` by sorting: numpy 2's hash-based
    ``np.unique`` is ~15x slower on the large id codes used here).  The sort is numpy's
    stable one (timsort for 64-bit integers), which uses the sorted runs of its input:
    ``document * width + label`` codes come in document order, each document's block made
    of a few sorted rows, and sorting them costs about a third of numpy's default sort
    (and grows linearly with the number of documents; the default sort does not)."""
    values = np.sort(values, kind="stable")
    return values[np.concatenate(([True], values[1:] != values[:-1]))] if len(values) else values


def sorted_member(values: np.ndarray, table: np.ndarray) -> np.ndarray:
    """For each value: is it in ``table`` (sorted, distinct)?"""
    if not len(table):
        return np.zeros(len(values), dtype=bool)
    where = np.minimum(np.searchsorted(table, values), len(table) - 1)
    return table[where] == values


def run_starts(sorted_keys: np.ndarray) -> np.ndarray:
    """True where a run of equal keys begins."""
    return np.concatenate(([True], sorted_keys[1:] != sorted_keys[:-1])) if len(sorted_keys) else \
        np.zeros(0, dtype=bool)


def sorted_order(*columns: tuple[np.ndarray, int | None]) -> np.ndarray:
    """The permutation sorting rows by ``columns`` (``(values, bound)`` pairs, most
    significant first; values in ``[0, bound)``, a bound of None meaning any
    non-negative value: taken as max + 1), ties kept in row order.  The columns are
    composed into one integer key when it fits in 62 bits (else :func:`numpy.lexsort`,
    many times slower); with the row number as the last digit when that fits too (one
    plain sort, the fastest), else by a stable sort of the key."""
    n = len(columns[0][0])
    if not n:
        return np.zeros(0, dtype=np.int64)
    bounds = [int(values.max()) + 1 if bound is None else int(bound or 1) for values, bound in columns]
    total = 1
    for bound in bounds:
        total *= max(bound, 1)
    if total >= 2 ** 62:
        return np.lexsort([np.arange(n)] + [values for values, _ in reversed(columns)])
    key = np.zeros(n, dtype=np.int64)
    for (values, _), bound in zip(columns, bounds):
        key = key * bound + values
    if total * n >= 2 ** 62:
        return np.argsort(key, kind="stable")
    return np.sort(key * n + np.arange(n)) % n


def expand_ranges(starts: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(owner, index)``: for each i, the indices ``starts[i] .. starts[i] + counts[i] - 1``
    with their owner i, concatenated."""
    owner = np.repeat(np.arange(len(counts)), counts)
    offsets = np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)
    return owner, np.repeat(starts, counts) + offsets
