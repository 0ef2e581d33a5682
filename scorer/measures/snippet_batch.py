"""The official snippet measures of many questions at once, in numpy.

:func:`official_batch` gives, for each (returned list, gold list) pair, exactly the four
numbers of :func:`~scorer.measures.snippets.official_snippet_measures` on the two lists
as :func:`~scorer.measures.snippets.official_merge` merges them (sections reduced by
:func:`~scorer.measures.snippets.official_section`), without a Python object per snippet
or per question: the snippets of every list become integer columns, the merge is one sort
and a running maximum, and the (returned, gold) pairs that share a last path segment are
found by one search.  Only lists whose every snippet has begin <= end qualify (for them
one merge is the collapse of each overlap-connected group into its hull at its first
member's place, and merging again changes nothing); a pair with another list gets no
numbers here (:attr:`Batch.ordinary`), the caller merges and measures it one snippet at a
time.

Identical numbers: every count (overlap, size) is an exact 64-bit integer (offsets are
32-bit, a file holds far fewer than 2^20 snippets, so no sum nears 2^53 and every integer
converts to a float exactly); every division is one IEEE division of those floats, as
Python's; AP's sum over the returned snippets is added in their order, one rank at a time
for all questions together, as the loop adds it (adding 0.0 after the last rank changes
no value: the sum starts at 0.0 and is never -0.0).
"""
from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from itertools import chain, repeat
from operator import itemgetter
from typing import TypeVar

import numpy as np

from scorer.measures.arrays import expand_ranges, sorted_order
from scorer.measures.snippets import Snippet, last_path_segment, official_section

#: Questions with more returned snippets than this add their AP terms one by one in
#: Python (the rank-by-rank sum of the others costs a pass over all questions per rank).
_WIDE = 64
#: Offsets are shifted by this before being packed under a segment number.
_SHIFT = 1 << 33
#: What :func:`_codes` codes: strings, or tuples of codes.
_Value = TypeVar("_Value", bound=Hashable)


@dataclass
class Batch:
    """The result of :func:`official_batch`: ``ordinary[i]`` tells whether list i has no
    inverted snippet; ``measures[k]`` is (P, R, F1, AP) of pair k, None for a pair with a
    list that is not ordinary."""

    ordinary: list[bool]
    measures: list[tuple[float, float, float, float] | None]


def _codes(values: Iterable[_Value], size: int) -> tuple[np.ndarray, dict[_Value, int]]:
    """An integer code per value of the ``size`` ``values``: 0, 1, ... in the order the
    distinct values first come (equal values, equal codes), and the table value -> code
    (in code order)."""
    table: dict[_Value, int] = {}
    return np.fromiter(map(table.setdefault, values, map(len, repeat(table))), np.int64, size), table


def _derived(table: dict[str, int], derive: Callable[[list[str]], Iterable[str]]) -> tuple[np.ndarray, dict[str, int]]:
    """For the codes of ``table`` (:func:`_codes`): the array code -> code of the value
    ``derive`` gives for it (called once, on the distinct values in code order), and the
    table of the derived values."""
    return _codes(derive(list(table)), len(table))


def _segment_sums(values: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The sums of consecutive runs of ``values`` of lengths ``counts`` (exact integers)."""
    ends = np.cumsum(counts)
    totals = np.concatenate(([0], np.cumsum(values)))
    return totals[ends] - totals[ends - counts]


def _running_within(values: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The running sums of ``values`` restarted at each run of lengths ``counts`` (exact integers)."""
    totals = np.cumsum(values)
    before = np.repeat(np.cumsum(counts) - counts, counts)
    return totals - np.concatenate(([0], totals))[before]


def official_batch(lists: Sequence[Sequence[Snippet]], pairs: Sequence[tuple[int, int]],
                   divisor_of: Callable[[int], int]) -> Batch:
    """(P, R, F1, AP) of each pair ``(returned list index, gold list index)`` of ``lists``
    (snippets as written), with the AP divisor ``divisor_of(number of merged gold
    snippets)``, as :func:`official_snippet_measures` gives them on the merged lists."""
    lengths = np.fromiter(map(len, lists), np.int64, len(lists))
    flat = list(chain.from_iterable(lists))
    begin, end = (np.fromiter(map(itemgetter(k), flat), np.int64, len(flat)) for k in (3, 4))
    owner = np.repeat(np.arange(len(lists)), lengths)
    inverted = np.bincount(owner[begin > end], minlength=len(lists)) > 0
    ordinary = ~inverted
    document, document_table = _codes(map(itemgetter(0), flat), len(flat))
    section, section_table = _codes(chain(map(itemgetter(1), flat), map(itemgetter(2), flat)), 2 * len(flat))
    reduce, reduced = _derived(section_table, partial(map, official_section))
    section = reduce[section]
    segment, _ = _derived(document_table, partial(map, last_path_segment))  # document code -> segment code
    first, second = section[:len(flat)], section[len(flat):]
    keep = ordinary[owner]
    place = _place(document, first, second, len(reduced))
    rows = _merged(owner[keep], place[keep], document[keep], first[keep], second[keep], begin[keep], end[keep],
                   np.flatnonzero(keep) - np.repeat(np.cumsum(lengths) - lengths, lengths)[keep])
    measures = _measures(rows, segment, np.array(pairs, np.int64).reshape(-1, 2), ordinary, len(lists),
                         reduced.get("0", -1), reduced.get("abstract", -2), divisor_of)
    return Batch(ordinary.tolist(), measures)


def _place(document: np.ndarray, first: np.ndarray, second: np.ndarray, sections: int) -> np.ndarray:
    """One code per (document, first section, second section): equal triples, equal codes."""
    if len(document) * sections * sections < 1 << 62:  # codes below len(document), sections below ``sections``
        return (document * sections + first) * sections + second
    return _codes(zip(document.tolist(), first.tolist(), second.tolist()), len(document))[0]


def _merged(owner: np.ndarray, place: np.ndarray, document: np.ndarray, first: np.ndarray, second: np.ndarray,
            begin: np.ndarray, end: np.ndarray, position: np.ndarray) -> dict[str, np.ndarray]:
    """The merged lists, as columns of their snippets in list and list order (``owner``,
    ``document``, ``first``, ``second``, ``begin``, ``end``): in each list, each group of
    snippets of one document and section pair connected by overlaps (closed intervals)
    becomes its hull at the place of its first member."""
    if not len(owner):
        return {"owner": owner, "document": document, "first": first, "second": second, "begin": begin, "end": end}
    order = sorted_order((owner, None), (place, None), (begin - int(begin.min()), None))
    owner_s, place_s, begin_s, end_s = owner[order], place[order], begin[order], end[order]
    same = np.zeros(len(order), bool)
    same[1:] = (owner_s[1:] == owner_s[:-1]) & (place_s[1:] == place_s[:-1])
    key_number = np.cumsum(~same)
    low = min(int(begin_s.min()), int(end_s.min()))
    reach = np.maximum.accumulate(key_number * _SHIFT + (end_s - low))  # greatest end so far, per key
    new_group = ~same
    new_group[1:] |= begin_s[1:] - low > reach[:-1] - key_number[1:] * _SHIFT
    starts = np.flatnonzero(new_group)
    last = np.concatenate((starts[1:], [len(order)])) - 1
    first_place = np.minimum.reduceat(position[order], starts)
    survivors = order[starts]
    owner_g = owner_s[starts]
    out = np.lexsort((first_place, owner_g))
    return {"owner": owner_g[out], "document": document[survivors][out], "first": first[survivors][out],
            "second": second[survivors][out], "begin": begin_s[starts][out],
            "end": (reach[last] - key_number[last] * _SHIFT + low)[out]}


def _measures(rows: dict[str, np.ndarray], segment_of: np.ndarray, pairs: np.ndarray, ordinary: np.ndarray,
              n_lists: int, zero: int, abstract: int,
              divisor_of: Callable[[int], int]) -> list[tuple[float, float, float, float] | None]:
    """(P, R, F1, AP) of each pair of merged lists (``rows`` of :func:`_merged`), None for a
    pair with a list that is not ordinary."""
    counts = np.bincount(rows["owner"], minlength=n_lists)
    starts = np.cumsum(counts) - counts
    good = ordinary[pairs[:, 0]] & ordinary[pairs[:, 1]] if len(pairs) else np.zeros(0, bool)
    returned, gold = pairs[good, 0], pairs[good, 1]
    n_returned, n_gold = counts[returned], counts[gold]
    pair_r, row_r = expand_ranges(starts[returned], n_returned)
    pair_g, row_g = expand_ranges(starts[gold], n_gold)
    document, first, second = rows["document"], rows["first"], rows["second"]
    begin, end = rows["begin"], rows["end"]
    size = end - begin + 1
    segments = int(segment_of.max()) + 1 if len(segment_of) else 1
    # the gold snippets of each pair by last path segment; each returned snippet's candidates
    gold_key = pair_g * segments + segment_of[document[row_g]]
    by_key = np.argsort(gold_key, kind="stable")
    sorted_key = gold_key[by_key]
    returned_key = pair_r * segments + segment_of[document[row_r]]
    low = np.searchsorted(sorted_key, returned_key, "left")
    candidates = np.searchsorted(sorted_key, returned_key, "right") - low
    which, at = expand_ranges(low, candidates)
    s, g = row_r[which], row_g[by_key[at]]
    compatible = ((first[s] == first[g]) & (second[s] == second[g])) | ((first[s] == zero) & (first[g] == abstract))
    meets = compatible & (begin[s] <= end[g]) & (end[s] >= begin[g])
    overlap = np.where(meets, np.minimum(end[s], end[g]) - np.maximum(begin[s], begin[g]) + 1, 0)
    same_document = document[s] == document[g]
    per_returned = _segment_sums(overlap, candidates)
    same_overlap = _segment_sums(np.where(same_document, overlap, 0), candidates)
    relevant = _segment_sums(same_document.astype(np.int64), candidates) > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = (_running_within(same_overlap, n_returned).astype(float)
                 / _running_within(size[row_r], n_returned).astype(float)) * relevant.astype(float)
        total = _sequential_sums(terms, n_returned)
        divisors = np.array([divisor_of(n) for n in n_gold.tolist()], float)
        ap = total / divisors
        overlap_sum = _segment_sums(per_returned, n_returned).astype(float)
        returned_size = _segment_sums(size[row_r], n_returned).astype(float)
        gold_size = _segment_sums(size[row_g], n_gold).astype(float)
        precision = np.where(returned_size != 0, overlap_sum / returned_size, 0.0)
        recall = np.where(gold_size != 0, overlap_sum / gold_size, 0.0)
        f1 = np.where((precision == 0) & (recall == 0), 0.0, 2 * precision * recall / (precision + recall))
    nothing = n_returned == 0
    values = np.column_stack((np.where(nothing, 0.0, precision), np.where(nothing, 0.0, recall),
                              np.where(nothing, 0.0, f1), ap)).tolist()
    out: list[tuple[float, float, float, float] | None] = [None] * len(pairs)
    for k, row in zip(np.flatnonzero(good).tolist(), values):
        out[k] = tuple(row)
    return out


def _sequential_sums(terms: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The sum of each run of ``terms`` (lengths ``counts``), added left to right from 0.0
    as a Python loop adds them (not numpy's pairwise summation)."""
    starts = np.cumsum(counts) - counts
    total = np.zeros(len(counts))
    narrow = counts <= _WIDE
    rank = np.arange(len(terms)) - np.repeat(starts, counts)
    table = np.zeros((len(counts), int(counts[narrow].max()) if narrow.any() and len(terms) else 0))
    in_narrow = np.repeat(narrow, counts)
    table[np.repeat(np.arange(len(counts)), counts)[in_narrow], rank[in_narrow]] = terms[in_narrow]
    for column in table.T:
        total += column
    for k in np.flatnonzero(~narrow).tolist():
        value = 0.0
        for term in terms[starts[k]:starts[k] + counts[k]].tolist():
            value += term
        total[k] = value
    return total
