"""Snippet merging: the fast component merge equals the official loop."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from scorer.measures.snippets import official_merge, official_merge_loop


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
def test_inverted_snippets_take_the_loop(snippets):
    assert official_merge(snippets) == official_merge_loop(snippets)


def test_hand_checked_merge():
    s = [("d", "abstract", "abstract", 0, 49), ("d", "abstract", "abstract", 500, 599),
         ("d", "abstract", "abstract", 40, 99), ("e", "abstract", "abstract", 0, 9)]
    assert official_merge(s) == [("d", "abstract", "abstract", 0, 99), s[1], s[3]]
