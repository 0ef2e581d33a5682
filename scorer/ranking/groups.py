"""Groups of systems from pairwise decisions: compact letters (Piepho 2004) and tiers.

``different``: the pairs of systems a test calls different (a set of two-system
frozensets); ``order``: the systems best first.  Both the within-batch tests
(:mod:`scorer.ranking.significance`) and the Nemenyi test across batches
(:mod:`scorer.ranking.nemenyi`) are shown this way.
"""
from __future__ import annotations

import string
from collections.abc import Sequence

_LABELS = string.ascii_lowercase + string.ascii_uppercase
#: A letter display is shown only up to this many groups; beyond, rows show their tier.
MAX_LETTER_GROUPS = 10
#: Piepho's algorithm gives up (no letters) when its working set of groups exceeds this.
_MAX_WORKING_GROUPS = 256

def compact_letters(order: Sequence[str], different: set[frozenset[str]],  # complexity 16: Piepho's algorithm in one piece, as published
                    max_groups: int = len(_LABELS)) -> dict[str, str] | None:
    """Letters such that two systems share a letter exactly when they are not ``different``,
    or None when that needs more than ``max_groups`` letters (or the working set of
    groups exceeds ``_MAX_WORKING_GROUPS``, which bounds the work for any input).

    Piepho's (2004) insert-and-absorb algorithm: start from one group of all systems; for
    each different pair {i, j}, every group holding both is replaced by the group
    without i and the group without j; groups inside another group are dropped (only the
    new ones can be: an old group inside a new one would have been inside its parent).
    Groups are bit sets of positions in ``order``; they are lettered a, b, c, ... by their
    best member (best first), so the top system always has "a".  Example: A, B, C with
    only A-C different -> A "a", B "ab", C "b".
    """
    position = {s: i for i, s in enumerate(order)}
    groups: list[int] = [(1 << len(order)) - 1] if order else []
    for pair in sorted(different, key=lambda p: sorted(position[s] for s in p)):
        i, j = sorted(position[s] for s in pair)
        both = (1 << i) | (1 << j)
        kept = [g for g in groups if g & both != both]
        new: list[int] = []
        for g in (g for g in groups if g & both == both):
            for part in (g & ~(1 << i), g & ~(1 << j)):
                if not any(part & h == part for h in kept) and not any(part & h == part for h in new):
                    new = [h for h in new if h & part != h] + [part]
        groups = kept + new
        if len(groups) > _MAX_WORKING_GROUPS:
            return None
    if len(groups) > min(max_groups, len(_LABELS)):
        return None
    lettered = sorted(groups, key=lambda g: [i for i in range(len(order)) if g >> i & 1])
    return {s: "".join(_LABELS[n] for n, g in enumerate(lettered) if g >> position[s] & 1) for s in order}


def tiers(order: Sequence[str], different: set[frozenset[str]]) -> dict[str, int]:
    """system -> tier, by layers of "significantly better": a system's tier is one more than
    the highest tier of the systems significantly better than it (``different`` from it
    and before it in ``order``, best first), and 1 when none is.

    So tier 1 is exactly the systems no system is significantly better than: those whose
    simultaneous rank set starts at 1 (:mod:`scorer.ranking.ranksets`), the systems that
    could be first; tier 2 is the systems only tier-1 systems are significantly better
    than; and so on.  Example: A > B > C > D with A-C, A-D and B-D different -> A 1, B 1,
    C 2, D 2; with only A-B and B-C different -> A 1, B 2, C 3.
    """
    out: dict[str, int] = {}
    for i, system in enumerate(order):
        out[system] = 1 + max((out[s] for s in order[:i] if frozenset((s, system)) in different), default=0)
    return out


def group_labels(order: Sequence[str], different: set[frozenset[str]]) -> tuple[dict[str, str], str]:
    """(system -> label, "letters" or "tiers"): the compact letters when there are at most
    :data:`MAX_LETTER_GROUPS` groups, else "T1", "T2", ... from :func:`tiers`."""
    ranked = tiers(order, different)
    letters = (compact_letters(order, different, MAX_LETTER_GROUPS)
               if max(ranked.values(), default=0) <= MAX_LETTER_GROUPS else None)
    if letters is not None:
        return letters, "letters"
    return {s: f"T{t}" for s, t in ranked.items()}, "tiers"
