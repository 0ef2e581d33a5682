"""The Phase A measures come from the kernels the measure registry names (issue 36): each
kernel, called through :func:`scorer.evaluation.kernels.bound` for the flavor and edition,
gives on a small case the numbers worked out by hand below, and the evaluator reports the
same numbers.

The case, edition 9 (AP divisor min(10, |gold|)), ε = 0.00001:

q1  gold: concepts C1 C2, documents D1 D2, snippet D1 [0, 9], triple T1
    run:  concepts C1 C3, documents D1 D3, snippet D1 [5, 14], triples T1 T2
q2  gold: concept C4, document D4, snippet D4 [0, 4]
    run:  no concept, documents D5 D4, snippets D4 [0, 4] then D9 [5, 4] (begin > end)

Listed categories (both flavors alike here but for triples: no repeats, fewer than 10
items): q1 concepts and documents P = R = F1 = 1/2, AP = (1/1) / 2 = 1/2; q2 documents
P = 1/2, R = 1, F1 = 2/3, AP = (1/2) / 1 = 1/2.  q1 triples: reference P = 1/2, R = 1,
F1 = 2/3, AP = 1/1 = 1; the official tool's first pass has reduced the run's triples to
the relevant T1 before its second pass measures them: P = R = F1 = AP = 1.  q2 has no run
concept: the official tool does not count it for concepts, the reference flavor scores it
0, 0, 0, 0.

Snippets, official (closed intervals, size e - b + 1): q1 overlap 5 of sizes 10 and 10,
so P = R = F1 = 1/2 and AP = (5/10) / 1; q2 overlap 5, sizes 5 + 0 (the inverted snippet:
5 - 4 + 1 = 0) and 5: P = R = F1 = 1, AP = (5/5 + (5/5)·0) / 1 = 1.  Its inverted
snippet keeps q2 out of the batch form (it is measured one question at a time).
Snippets, reference (half-open [b, e), empty spans dropped): q1 overlap 4 of 9 and 9, so
P = R = F1 = AP = 4/9; q2 P = R = F1 = AP = 1.

Means over the questions counted; official GMAP = exp(mean ln(AP + ε)); reference GMAP
the same minus ε, clamped into [0, 1].
"""
from __future__ import annotations

import math

import pytest

import scorer
from scorer.evaluation.kernels import bound
from scorer.measures.snippets import Snippet

URL = "http://www.ncbi.nlm.nih.gov/pubmed/{}"
EPS = 0.00001
EDITION = 9


def snip(doc: str, b: int, e: int) -> dict:
    return {"document": URL.format(doc), "beginSection": "abstract", "endSection": "abstract",
            "offsetInBeginSection": b, "offsetInEndSection": e, "text": ""}


def triple(name: str) -> dict:
    return {"s": name, "p": "p", "o": "o"}


GOLD = {"questions": [
    {"id": "q1", "body": "one", "concepts": ["C1", "C2"], "documents": [URL.format(1), URL.format(2)],
     "snippets": [snip("1", 0, 9)], "triples": [triple("T1")]},
    {"id": "q2", "body": "two", "concepts": ["C4"], "documents": [URL.format(4)], "snippets": [snip("4", 0, 4)]}]}
RUN = {"questions": [
    {"id": "q1", "body": "one", "concepts": ["C1", "C3"], "documents": [URL.format(1), URL.format(3)],
     "snippets": [snip("1", 5, 14)], "triples": [triple("T1"), triple("T2")]},
    {"id": "q2", "body": "two", "concepts": [], "documents": [URL.format(5), URL.format(4)],
     "snippets": [snip("4", 0, 4), snip("9", 5, 4)]}]}


def gmap(aps: list[float], shifted: bool) -> float:
    value = math.exp(sum(math.log(ap + EPS) for ap in aps) / len(aps))
    return min(1.0, max(0.0, value - EPS)) if shifted else value


def hand(flavor: str) -> dict[str, float]:
    """The measures worked out in the module docstring."""
    shifted = flavor == "reference"
    concepts = [0.5, 0.5, 0.5, 0.5], *([[0.0, 0.0, 0.0, 0.0]] if shifted else [])
    documents = [0.5, 0.5, 0.5, 0.5], [0.5, 1.0, 2 / 3, 0.5]
    snippets = ([4 / 9] * 4 if shifted else [0.5] * 4), [1.0] * 4
    triples = ([0.5, 1.0, 2 / 3, 1.0] if shifted else [1.0] * 4,)
    out = {}
    for category, rows in (("concepts", concepts), ("documents", documents), ("snippets", snippets),
                           ("triples", triples)):
        for k, stat in enumerate(("precision", "recall", "f1", "map")):
            out[f"{category}.{stat}"] = sum(row[k] for row in rows) / len(rows)
        out[f"{category}.gmap"] = gmap([row[3] for row in rows], shifted)
    return out


@pytest.mark.parametrize("flavor", ["official", "reference"])
def test_the_evaluator_reports_the_hand_worked_numbers(flavor):
    result = scorer.evaluate(GOLD, RUN, task="phaseA", edition=EDITION, flavor=flavor)
    assert result.measures == pytest.approx(hand(flavor), rel=1e-12, abs=0)


def kernel(flavor: str, *names: str):
    return bound(names, flavor, EDITION)


def _prf_map(category: str) -> tuple[str, ...]:
    return tuple(f"{category}.{stat}" for stat in ("precision", "recall", "f1"))


def test_the_official_kernels_give_the_hand_worked_numbers():
    # P, R, F1: official_prf(returned, gold, gold set); AP: (returned, gold set, divisor)
    prf, ap = kernel("official", *_prf_map("documents")), kernel("official", "documents.map")
    assert prf.scores(["D5", "D4"], ["D4"], {"D4"}) == pytest.approx((0.5, 1.0, 2 / 3))
    assert ap.value(["D5", "D4"], {"D4"}, 1) == 0.5
    assert kernel("official", *_prf_map("triples")).scores(["T1", "T2"], ["T1"], {"T1"}) == pytest.approx(
        (0.5, 1.0, 2 / 3))
    assert kernel("official", "triples.map").value(["T1", "T2"], {"T1"}, 1) == 1.0
    # snippets: one question at a time on the merged lists, and the batch form on the lists as written
    snippets = kernel("official", "snippets.precision", "snippets.recall", "snippets.f1", "snippets.map")
    q1_gold, q1_run = [Snippet(URL.format(1), "abstract", "abstract", 0, 9)], \
        [Snippet(URL.format(1), "abstract", "abstract", 5, 14)]
    q2_gold = [Snippet(URL.format(4), "abstract", "abstract", 0, 4)]
    q2_run = [Snippet(URL.format(4), "abstract", "abstract", 0, 4), Snippet(URL.format(9), "abstract", "abstract", 5, 4)]
    assert snippets.scores(q1_run, q1_gold, 1) == (0.5, 0.5, 0.5, 0.5)
    assert snippets.scores(q2_run, q2_gold, 1) == (1.0, 1.0, 1.0, 1.0)
    batch, measures = snippets.many([q1_gold, q1_run, q2_gold, q2_run], [(1, 0), (3, 2)], lambda n: min(10, n))
    assert batch.ordinary == [True, True, True, False]
    assert measures == [(0.5, 0.5, 0.5, 0.5), None]  # q2: left to the one-question form
    # GMAP by each category's rule (NaN for no document question; snippets skip a NaN AP)
    assert kernel("official", "concepts.gmap").value([0.5]) == pytest.approx(0.5 + EPS, rel=1e-12)
    assert kernel("official", "concepts.gmap").value([]) == 0.0
    assert math.isnan(kernel("official", "documents.gmap").value([]))
    assert kernel("official", "documents.gmap").value([0.5, 0.5]) == pytest.approx(0.5 + EPS, rel=1e-12)
    assert kernel("official", "snippets.gmap").value([0.5, 1.0]) == pytest.approx(
        math.sqrt((0.5 + EPS) * (1 + EPS)), rel=1e-12)
    assert kernel("official", "snippets.gmap").value([1.0, math.nan]) == pytest.approx(
        math.exp(math.log(1 + EPS) / 2), rel=1e-12)  # the NaN adds nothing but counts
    assert kernel("official", "snippets.gmap").value([math.nan]) == 0.0  # a log-sum of 0
    assert kernel("official", "snippets.gmap").value([]) == 0.0


def test_the_reference_kernels_give_the_hand_worked_numbers():
    # P, R, F1: set_prf(unique returned, gold set); AP: (returned, gold set, divisor), cut at 10
    assert kernel("reference", *_prf_map("documents")).scores(["5", "4"], {"4"}) == pytest.approx((0.5, 1.0, 2 / 3))
    assert kernel("reference", "documents.map").value(["5", "4"], {"4"}, 1) == 0.5
    assert kernel("reference", "concepts.map").value([], {"C4"}, 1) == 0.0
    snippets = kernel("reference", "snippets.precision", "snippets.recall", "snippets.f1", "snippets.map")
    q1 = snippets.scores([Snippet(URL.format(1), "abstract", "abstract", 5, 14)],
                         [Snippet(URL.format(1), "abstract", "abstract", 0, 9)], lambda n: min(10, n))
    assert q1 == pytest.approx((4 / 9,) * 4, rel=1e-12)
    assert kernel("reference", "snippets.gmap").value([4 / 9, 1.0]) == pytest.approx(
        math.sqrt((4 / 9 + EPS) * (1 + EPS)) - EPS, rel=1e-12)
    assert kernel("reference", "triples.gmap").value([1.0]) == 1.0  # clamped: 1 + ε - ε, at most 1
    assert math.isnan(kernel("reference", "triples.gmap").value([]))
