"""The drill-down's answers: :mod:`scorer.site.explain` (pure logic), the answers
template (escaping, marks) and the run and head-to-head pages of the built demo."""
from __future__ import annotations

import re
from pathlib import Path

import markupsafe
import pytest

from scorer.formats.hierarchy import parse_hierarchy
from scorer.formats.taskb import Question, Snippet
from scorer.site import answers_html, explain

URL = "http://www.ncbi.nlm.nih.gov/pubmed/"


def snippet(pmid: str, begin: int, text: str, section: str = "abstract", url: str = URL) -> Snippet:
    return Snippet(url + pmid, section, section, begin, begin + len(text), text)


def texts(segments, marked: bool) -> list[str]:
    return [s.text for s in segments if s.marked is marked]


# --- marked segments ------------------------------------------------------------------------

def test_segments_mark_the_shared_offsets_and_keep_every_character():
    segments = explain.marked_segments("abcdef", 10, [(12, 14)])
    assert [(s.text, s.marked) for s in segments] == [("ab", False), ("cd", True), ("ef", False)]


def test_segments_clip_spans_to_the_text_and_merge_overlapping_spans():
    segments = explain.marked_segments("abcdef", 10, [(0, 11), (13, 15), (14, 99)])
    assert "".join(s.text for s in segments) == "abcdef"
    assert texts(segments, True) == ["a", "def"]


def test_segments_without_a_span_are_one_unmarked_run():
    assert [(s.text, s.marked) for s in explain.marked_segments("", 0, [])] == [("", False)]
    assert [(s.text, s.marked) for s in explain.marked_segments("xy", 5, [(0, 5)])] == [("xy", False)]


# --- documents and snippets ------------------------------------------------------------------

def test_documents_are_relevant_by_pubmed_id_in_rank_order_with_repeats_flagged():
    shown = explain.documents([URL + "1", "https://pubmed.ncbi.nlm.nih.gov/2/", "PMID:1", "3"], [URL + "2", URL + "1"])
    assert [(d.rank, d.pmid, d.relevant, d.repeat) for d in shown] == [
        (1, "1", True, False), (2, "2", True, False), (3, "1", True, True), (4, "3", False, False)]


def test_snippets_are_grouped_by_document_beside_its_gold_snippets_with_shared_characters_marked():
    gold = [snippet("1", 100, "Variants in FARB7 cause disease."), snippet("1", 0, "Other gold."),
            snippet("2", 100, "Variants elsewhere.")]
    returned = [snippet("1", 109, "in FARB7 cause disease. And more."), snippet("3", 0, "No gold."),
                snippet("1", 0, "Other")]
    first, second = explain.snippets(returned, explain.gold_documents(gold))
    assert (first.pmid, [s.rank for s in first.returned], second.pmid) == ("1", [1, 3], "3")
    assert [(g.begin, g.segments[0].text) for g in first.gold] == [(100, gold[0].text), (0, "Other gold.")]
    assert second.gold == ()  # the gold of its PubMed id only, in gold order
    assert [texts(s.segments, True) for s in first.returned] == [["in FARB7 cause disease."], ["Other"]]
    assert [s.shared for s in first.returned] == [len("in FARB7 cause disease."), len("Other")]
    assert texts(second.returned[0].segments, True) == [] and second.returned[0].shared == 0
    assert not any(s.credited_without_overlap for g in (first, second) for s in g.returned)


def test_other_sections_share_no_character():
    gold = explain.gold_documents([snippet("1", 0, "Same offsets.")])
    (group,) = explain.snippets([snippet("1", 0, "Same offsets.", "title")], gold)
    assert texts(group.returned[0].segments, True) == [] and group.returned[0].shared == 0


def credited(returned: Snippet, gold: list[Snippet]) -> bool:
    return explain.snippets([returned], explain.gold_documents(gold))[0].returned[0].credited_without_overlap


def test_official_credit_without_overlap_is_flagged_only_for_the_identical_document_string():
    gold = [snippet("1", 0, "Gold text here.")]
    assert credited(snippet("1", 500, "Nothing in common."), gold)
    # another URL form of the same PubMed id: the official AP does not credit it
    assert not credited(snippet("1", 500, "x", url="PMID:"), gold)
    # an overlap, even of one inclusive offset, is no quirk
    assert not credited(Snippet(URL + "1", "abstract", "abstract", gold[0].end, gold[0].end + 5, "abcde"), gold)
    assert not credited(snippet("9", 0, "x"), gold)


# --- exact and ideal answers -------------------------------------------------------------------

GOLD_FACTOID = [["FARB7", "farbin 7"], ["OSMQ4"]]


@pytest.mark.parametrize("flavor", ["official", "reference"])
def test_factoid_entries_name_the_gold_synonym_they_matched_and_the_first_right_rank(flavor):
    shown = explain.exact_answer("factoid", [["LUMD3"], ["Farbin 7"], ["osmq4"]], True, GOLD_FACTOID, flavor, 9)
    assert [e.matched for e in shown.entries] == [None, "farbin 7", "OSMQ4"]
    assert shown.rank == 2 and shown.answered
    assert shown.gold_entries == (("FARB7", "farbin 7"), ("OSMQ4",))


def test_the_official_reading_keeps_only_the_first_string_of_a_submitted_entry():
    given = [["unknown", "FARB7"]]
    assert explain.exact_answer("list", given, True, GOLD_FACTOID, "official", 9).entries[0].matched is None
    assert explain.exact_answer("list", given, True, GOLD_FACTOID, "reference", 9).entries[0].matched == "FARB7"


def test_an_unanswered_factoid_has_no_entry_and_no_rank():
    shown = explain.exact_answer("factoid", None, False, GOLD_FACTOID, "official", 9)
    assert shown.entries == () and shown.rank is None and not shown.answered


@pytest.mark.parametrize("flavor, given, label, correct", [
    ("official", "Yes, it does", "yes", True), ("official", "maybe", "none", False),
    ("reference", " YES ", "yes", True), ("reference", "no", "no", False)])
def test_yes_no_answers_as_the_flavor_reads_them(flavor, given, label, correct):
    shown = explain.exact_answer("yesno", given, True, "yes", flavor, 9)
    assert (shown.given, shown.gold_label, shown.correct) == (label, "yes", correct)


def test_summary_questions_have_no_exact_answer_and_rouge_values_keep_their_order():
    assert explain.exact_answer("summary", None, False, None, "official", 9) is None
    values = {"ideal.rougesu4.f1": 0.5, "ideal.rouge2.f1": 0.25, "list.f1": 1.0}
    assert explain.ideal_values(values) == [("ideal.rouge2.f1", 0.25), ("ideal.rougesu4.f1", 0.5)]


def test_a_question_view_takes_body_and_type_from_the_test_set_else_the_gold():
    gold = Question(id="q", index=0, type="factoid", body="Gold body?", exact_answer=GOLD_FACTOID,
                    has_exact_answer=True, ideal_answer=["Gold ideal."])
    run = Question(id="q", index=0, exact_answer=[["farb7"]], has_exact_answer=True, ideal_answer="Mine.")
    view = explain.taskb_question("q", None, gold, run, {"ideal.rouge2.f1": 0.5}, retrieval=False, answers=True,
                                  flavor="official", edition=9)
    assert (view.body, view.type, view.ideal, view.gold_ideal) == ("Gold body?", "factoid", "Mine.", ("Gold ideal.",))
    assert view.exact.entries[0].matched == "FARB7" and view.documents is None
    shown = Question(id="q", index=0, type="list", body="Test-set body?")
    assert explain.taskb_question("q", shown, gold, None, None, retrieval=True, answers=False,
                                  flavor="official", edition=9).body == "Test-set body?"


# --- Task A labels ------------------------------------------------------------------------------

HIERARCHY = parse_hierarchy("R A\nR B\nA C\nC D\nB E\nX Y\n")


def test_distance_is_the_shortest_path_up_and_down_to_the_nearest_target():
    far = explain.label_distances(HIERARCHY, ["D", "E", "A", "C", "Y", "nope"], ["C", "B"])
    assert far == {"D": 1, "E": 1, "A": 1, "C": 0, "Y": None, "nope": None}  # Y: no common ancestor but the artificial root
    assert explain.label_distances(HIERARCHY, ["D"], ["E"]) == {"D": 5}
    assert explain.label_distances(HIERARCHY, ["D"], ["nope"]) == {"D": None}


def test_distance_takes_the_nearest_common_ancestor_of_a_polyhierarchy():
    dag = parse_hierarchy("R A\nA B\nB D\nR E\nE G\nG D\nA F\n")  # D has the parents B and G
    assert explain.label_distances(dag, ["D"], ["F"]) == {"D": 3}  # D-B-A-F, not up to R
    assert explain.label_distances(dag, ["E"], ["D"]) == {"E": 2}  # E-G-D, down the second parent


def test_labels_split_into_right_wrong_and_missed_with_distances():
    shown = explain.labels("7", ["A", "D", "A", "Q"], ["A", "E"], HIERARCHY)
    assert shown.correct == ("A",)
    assert shown.wrong == (("D", 2), ("Q", None))
    assert shown.missed == (("E", 3),)
    assert explain.labels("7", ["D"], ["E"], None).wrong == (("D", None),)


# --- multiple choice and head to head -------------------------------------------------------------

def test_choice_marks_the_chosen_and_the_correct_candidate():
    shown = explain.choice("Q?", [("1", "one"), ("2", "two")], "2", "1", None)
    assert [(c.id, c.chosen, c.correct) for c in shown.candidates] == [("1", True, False), ("2", False, True)]
    assert not shown.right and not shown.unanswered
    unanswered = explain.choice("Q?", [("1", "one"), ("2", "two")], "2", None, "2")
    assert unanswered.unanswered and not unanswered.right and unanswered.candidates[1].chosen


def test_most_different_puts_the_largest_summed_difference_first():
    a = {"q1": {"m": 1.0, "n": 0.0}, "q2": {"m": 0.5}, "q3": {"m": 0.2}}
    b = {"q1": {"m": 1.0, "n": 0.0}, "q2": {"m": 0.0, "n": 0.7}, "q4": {"m": 0.3}}
    order = explain.most_different(a, b, ["m", "n"])
    assert [q for q, _ in order] == ["q2", "q4", "q3", "q1"]
    assert order[0][1] == pytest.approx(0.5 + 0.7) and order[-1][1] == 0


# --- the template ------------------------------------------------------------------------------

def test_participant_text_is_escaped_and_only_the_shared_characters_are_marked():
    hostile = "<script>alert(1)</script> & more"
    gold = [snippet("1", 0, "<script>alert(1)</script>")]
    view = explain.QuestionView("q<1>", body="<b>Body</b>?", type="list",
                                snippets=tuple(explain.snippets([snippet("1", 0, hostile)], explain.gold_documents(gold))),
                                exact=explain.exact_answer("list", [["<i>x</i>"]], True, [["<i>X</i>"]], "official", 9),
                                ideal="<img src=x onerror=alert(1)>", gold_ideal=("ok",))
    html = str(answers_html.questions_html([view], [answers_html.parts_html(view)]))
    assert "<script>" not in html and "<b>" not in html and "<img" not in html and "<i>" not in html
    assert "&lt;b&gt;Body&lt;/b&gt;?" in html and "q&lt;1&gt;" in html
    assert "<mark>&lt;script&gt;alert(1)&lt;/script&gt;</mark> &amp; more" in html
    assert '<q class="synonym">&lt;i&gt;X&lt;/i&gt;</q>' in html


@pytest.mark.parametrize("text", ["<a href=\"x\" title='y'>&amp;</a>", "plain", "", 12, 0.5, None,
                                  markupsafe.Markup("<b>kept</b> &amp;")])
def test_escape_gives_the_bytes_of_markupsafe(text):
    assert answers_html.escape(text) == str(markupsafe.escape(text))


# --- the built demo --------------------------------------------------------------------------

@pytest.fixture(scope="module")
def demo_site(demo_site_with_testsets) -> Path:
    """The demo's site with its test sets (built once per test process: tests/conftest.py)."""
    return demo_site_with_testsets


def details(html: str) -> list[str]:
    return re.findall(r'<details class="answer".*?</details>', html, flags=re.S)


def test_a_phase_a_run_page_shows_bodies_relevance_and_marked_snippets(demo_site):
    html = (demo_site / "runs/taskB/batch1/phaseA/helix/helix-dense.html").read_text(encoding="utf-8")
    shown = details(html)
    assert shown and shown[0].startswith('<details class="answer" open>')
    assert all("open" not in d.split(">", 1)[0] for d in shown[1:])  # lazy: closed but the first
    assert "Which genes are associated with Brennan-Oakes disease?" in shown[0]
    assert re.search(r'<li class="hit">\d+ ✓</li>', shown[0]) and "<mark>" in shown[0]


def test_a_phase_b_run_page_shows_synonyms_ideal_answers_and_rouge(demo_site):
    html = (demo_site / "runs/taskB/batch1/phaseB/helix/helix-dense.html").read_text(encoding="utf-8")
    assert '<q class="synonym">' in html and "Ideal answer" in html and "Gold 1" in html
    assert "ROUGE" in html


def test_task_a_and_mcqa_run_pages_show_labels_and_candidates(demo_site):
    taska = (demo_site / "runs/taskA/batch1/week1/northbridge/nb-hier.html").read_text(encoding="utf-8")
    assert len(details(taska)) == 50 and "from the nearest gold label" in taska
    mcqa = (demo_site / "runs/mcqa/batch1/run/helix/helix-dense.html").read_text(encoding="utf-8")
    assert "<em>correct</em>" in mcqa and "What is the full name of NEXR9?" in mcqa


def test_head_to_head_shows_the_most_different_questions_first_side_by_side(demo_site):
    pages = sorted((demo_site / "compare/taskB/batch1/phaseB").glob("*__*.html"))
    assert pages
    html = pages[0].read_text(encoding="utf-8")
    differences = [float(d) for d in re.findall(r'<span class="diff">\(difference ([0-9.]+)\)', html)]
    assert differences and differences == sorted(differences, reverse=True)
    assert html.count('<div class="side">') == 2 * len(differences)
