"""Snippet merging: the fast merges equal the official loop, also with inverted snippets."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from scorer.measures.snippets import (
    _parsed_pubmed_id,
    last_path_segment,
    official_merge,
    official_merge_loop,
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
