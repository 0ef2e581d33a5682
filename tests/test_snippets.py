"""Snippet merging: the fast merges equal the official loop, also with inverted snippets."""
from __future__ import annotations

import math
from collections import defaultdict
from functools import partial

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from scorer.measures import snippet_batch
from scorer.measures.retrieval import ap_divisor, ieee_div
from scorer.measures.snippet_batch import official_batch
from scorer.measures.snippets import (
    Snippet,
    _parsed_pubmed_id,
    is_ordinary,
    last_path_segment,
    official_merge,
    official_merge_loop,
    official_overlap,
    official_snippet_measures,
    official_snippets,
    pubmed_id,
)


@st.composite
def snippet_lists(draw, inverted: bool):
    out = []
    for _ in range(draw(st.integers(0, 10))):
        b = draw(st.integers(0, 40))
        size = draw(st.integers(-6 if inverted else 0, 10))
        out.append((draw(st.sampled_from("ab")), draw(st.sampled_from(["abstract", "0"])), "abstract", b, b + size))
    return out


@settings(max_examples=2000, deadline=None)
@given(snippet_lists(inverted=False))
def test_component_merge_equals_the_official_loop(snippets):
    assert official_merge(snippets) == official_merge_loop(snippets)


@settings(max_examples=500, deadline=None)
@given(snippet_lists(inverted=True))
def test_inverted_snippets_merge_as_the_official_loop(snippets):
    assert official_merge(snippets) == official_merge_loop(snippets)


#: Several keys, inverted (d < 0), point (d = 0), nested, wide and repeated intervals on a small range.
mixed_lists = st.lists(st.tuples(st.sampled_from("ab"), st.sampled_from(["s1", "s2"]), st.integers(0, 24),
                                 st.integers(-12, 30)), max_size=14).map(
    lambda drawn: [(key, section, "s2", b, b + d) for key, section, b, d in drawn])


@settings(max_examples=1000, deadline=None)
@given(mixed_lists)
def test_mixed_lists_merge_as_the_official_loop(snippets):
    merged = official_merge(snippets)
    assert merged == official_merge_loop(snippets)
    assert official_merge(merged) == official_merge_loop(merged)  # the second pass too


def test_hand_checked_inverted_merges():
    """[5, 3] needs a snippet containing 3..5: it is skipped while the hull (0, 10) grows
    after it, then a later snippet that absorbs it moves its hull back one place."""
    v, a, b = ("d", "s1", "s2", 5, 3), ("d", "s1", "s2", 0, 4), ("d", "s1", "s2", 4, 10)
    x = ("x", "s1", "s2", 0, 0)
    assert official_merge([v, a, b]) == [v, ("d", "s1", "s2", 0, 10)]  # v at position 0 is not re-examined
    assert official_merge([x, v, a, b]) == [x, ("d", "s1", "s2", 0, 10)]
    assert official_merge([x, v, ("d", "s1", "s2", 0, 9)]) == [x, ("d", "s1", "s2", 0, 9)]


def test_hand_checked_merge():
    s = [("d", "abstract", "abstract", 0, 49), ("d", "abstract", "abstract", 500, 599),
         ("d", "abstract", "abstract", 40, 99), ("e", "abstract", "abstract", 0, 9)]
    assert official_merge(s) == [("d", "abstract", "abstract", 0, 99), s[1], s[3]]


@given(st.sampled_from(["", "http://www.ncbi.nlm.nih.gov/pubmed/", "https://pubmed.ncbi.nlm.nih.gov/", "PMID:", " "])
       .flatmap(lambda prefix: st.text("0123456789/ \u0661x\u00b2", max_size=6).map(lambda rest: prefix + rest)))
def test_pubmed_id_of_the_gold_url_form_is_what_the_parse_gives(document):
    assert pubmed_id(document) == _parsed_pubmed_id(document)


@given(st.sampled_from(["", "http://www.ncbi.nlm.nih.gov/pubmed/", "http://x/", "/"])
       .flatmap(lambda prefix: st.text("12/a", max_size=5).map(lambda rest: prefix + rest)))
def test_last_path_segment_of_the_gold_url_form_is_what_the_split_gives(document):
    assert last_path_segment(document) == document.rstrip("/").rsplit("/", 1)[-1]


# --- official snippet measures: one pass equals the two loops of the official tool ---------

def reference_snippet_prf(returned, gold):
    """The official P, R, F1 as a loop of their own (the form the scorer had before the
    one-pass :func:`official_snippet_measures`)."""
    if not returned:
        return 0.0, 0.0, 0.0
    by_segment = defaultdict(list)
    for g in gold:
        by_segment[last_path_segment(g[0])].append(g)
    overlap = sum(official_overlap(s, g) for s in returned for g in by_segment.get(last_path_segment(s[0]), ()))
    returned_size = sum(s[4] - s[3] + 1 for s in returned)
    gold_size = sum(g[4] - g[3] + 1 for g in gold)
    precision = overlap / returned_size if returned_size else 0.0
    recall = overlap / gold_size if gold_size else 0.0
    f1 = 0.0 if precision == 0 and recall == 0 else ieee_div(2 * precision * recall, precision + recall)
    return precision, recall, f1


def reference_snippet_ap(returned, gold, divisor):
    """The official AP as a loop of its own over the gold snippets of identical documents."""
    by_document = defaultdict(list)
    for g in gold:
        by_document[g[0]].append(g)
    total, overlap, size = 0.0, 0, 0
    for s in returned:
        same_document = by_document.get(s[0], ())
        overlap += sum(official_overlap(s, g) for g in same_document)
        size += s[4] - s[3] + 1
        total += ieee_div(overlap, size) * (1 if same_document else 0)
    return ieee_div(total, divisor)


#: Documents that share a last path segment without being identical strings, and one that does not.
DOCUMENTS = ["http://www.ncbi.nlm.nih.gov/pubmed/1", "https://pubmed.ncbi.nlm.nih.gov/1/", "1",
             "http://www.ncbi.nlm.nih.gov/pubmed/2"]
official_snippet_lists = st.lists(st.tuples(
    st.sampled_from(DOCUMENTS), st.sampled_from(["abstract", "0", "title"]), st.sampled_from(["abstract", "title"]),
    st.integers(0, 30), st.integers(-8, 20)), max_size=8).map(
    lambda drawn: [(d, bs, es, b, b + n) for d, bs, es, b, n in drawn])


def same_numbers(a, b) -> bool:
    return all(x == y or (math.isnan(x) and math.isnan(y)) for x, y in zip(a, b, strict=True))


@settings(max_examples=1500, deadline=None)
@given(official_snippet_lists, official_snippet_lists, st.integers(0, 12))
def test_one_pass_snippet_measures_equal_the_official_loops(returned, gold, divisor):
    """Inverted (e < b) and empty (size 0) snippets included: sizes summing to 0, 0/0 = NaN
    and NaN·0 in the AP must come out as the official loops give them."""
    expected = (*reference_snippet_prf(returned, gold), reference_snippet_ap(returned, gold, divisor))
    assert same_numbers(official_snippet_measures(returned, gold, divisor), expected)


# --- the snippet measures of many questions at once equal those of one question at a time --

def written_lists(inverted: bool):
    """Lists of written snippets: documents sharing a last path segment, sections the tool
    reduces after their first dot (``sections.0`` to ``0``, ``a.b.c`` to ``b.c``), repeats,
    adjacent and nested intervals and, with ``inverted``, snippets ending before they begin."""
    return st.lists(st.tuples(
        st.sampled_from(DOCUMENTS[:1] * 4 + DOCUMENTS),
        st.sampled_from(["abstract"] * 6 + ["0", "sections.0", "a.b.c", "b.c"]),
        st.sampled_from(["abstract"] * 4 + ["sections.0", "title"]), st.integers(0, 20),
        st.integers(-8 if inverted else 0, 10)), max_size=12).map(
        lambda drawn: [Snippet(d, bs, es, b, b + n, "") for d, bs, es, b, n in drawn])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(written_lists(False), written_lists(True)), min_size=1, max_size=8), st.data(),
       st.sampled_from([2, 3, 5, 8, 9]))
def test_batch_snippet_measures_equal_one_question_at_a_time(lists, data, edition):
    """Every pair of two ordinary lists gets the numbers of merging both lists and measuring
    them one question at a time, bit for bit (the sign of a zero and NaN included); a pair
    with a list holding an inverted snippet gets none (the caller merges those pass by pass)."""
    pairs = data.draw(st.lists(st.tuples(st.integers(0, len(lists) - 1), st.integers(0, len(lists) - 1)),
                               max_size=12))
    batch = official_batch(lists, pairs, partial(ap_divisor, edition))
    assert batch.ordinary == [is_ordinary(s) for s in lists]
    for (returned, gold), measures in zip(pairs, batch.measures, strict=True):
        if not (is_ordinary(lists[returned]) and is_ordinary(lists[gold])):
            assert measures is None
            continue
        merged_gold = official_merge(official_snippets(lists[gold]))
        expected = official_snippet_measures(official_merge(official_snippets(lists[returned])), merged_gold,
                                             ap_divisor(edition, len(merged_gold)))
        assert [repr(v) for v in measures] == [repr(v) for v in expected]


def test_snippet_places_are_equal_exactly_when_document_and_sections_are_both_ways():
    """:func:`snippet_batch._place` packs (document, first section, second section) into one
    integer while it fits in 62 bits and codes the triples through a table past that."""
    document, first, second = np.array([0, 1, 0, 1, 0]), np.array([2, 2, 2, 3, 2]), np.array([1, 1, 1, 1, 0])
    triples = list(zip(document.tolist(), first.tolist(), second.tolist()))
    for sections in (4, 1 << 31):  # 5 * (2**31)**2 passes 2**62: the table
        place = snippet_batch._place(document, first, second, sections).tolist()
        assert [[a == b for b in place] for a in place] == [[a == b for b in triples] for a in triples]
