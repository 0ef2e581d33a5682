"""Phase A reference flavor: hand-checked examples of each difference from the
official tool, and properties (hypothesis) over random files."""
from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import scorer
from scorer.measures.retrieval import GMAP_EPSILON

URL = "http://www.ncbi.nlm.nih.gov/pubmed/{}"


def snip(doc, b, e, section="abstract", url=URL):
    return {"document": url.format(doc), "beginSection": section, "endSection": section,
            "offsetInBeginSection": b, "offsetInEndSection": e, "text": ""}


def both(gold_questions, run_questions, edition=8):
    gold, run = {"questions": gold_questions}, {"questions": run_questions}
    return (scorer.evaluate(gold, run, task="phaseA", edition=edition, flavor="official").measures,
            scorer.evaluate(gold, run, task="phaseA", edition=edition, flavor="reference").measures)


def test_a_missing_question_counts_as_zero():
    gold = [{"id": "q1", "documents": [URL.format(1)]}, {"id": "q2", "documents": [URL.format(2)]}]
    official, reference = both(gold, [{"id": "q1", "documents": [URL.format(1)]}])
    assert official["documents.precision"] == 1.0      # q2 left out of the mean
    assert reference["documents.precision"] == 0.5     # (1 + 0) / 2


def test_documents_compare_as_pubmed_ids():
    gold = [{"id": "q1", "documents": [URL.format(123)]}]
    run = [{"id": "q1", "documents": ["https://pubmed.ncbi.nlm.nih.gov/123/", "123"]}]
    official, reference = both(gold, run)
    assert official["documents.precision"] == 0.0
    assert reference["documents.precision"] == 1.0     # one unique document, relevant
    assert reference["documents.recall"] == 1.0


def test_ap_looks_at_the_first_ten_returned_items():
    docs = [URL.format(i) for i in range(15)]
    official, reference = both([{"id": "q1", "documents": docs}], [{"id": "q1", "documents": docs}])
    assert official["documents.map"] == 1.5            # 15 / min(10, 15)
    assert reference["documents.map"] == 1.0           # 10 / 10


def test_gmap_of_a_perfect_run_is_one():
    docs = [URL.format(1)]
    official, reference = both([{"id": "q1", "documents": docs}], [{"id": "q1", "documents": docs}])
    assert official["documents.gmap"] == pytest.approx(1 + GMAP_EPSILON)
    assert reference["documents.gmap"] == 1.0


def test_overlapping_snippets_count_once():
    # gold [0, 100) of PMID 1; the run returns [0, 60) and [40, 100) under two URL forms
    gold = [{"id": "q1", "documents": [URL.format(1)], "snippets": [snip(1, 0, 100)]}]
    run = [{"id": "q1", "documents": [URL.format(1)],
            "snippets": [snip(1, 0, 60), snip(1, 40, 100, url="https://pubmed.ncbi.nlm.nih.gov/{}")]}]
    official, reference = both(gold, run)
    assert reference["snippets.precision"] == 1.0      # 100 positions returned, all gold
    assert reference["snippets.recall"] == 1.0
    # official: unmerged (different strings), 61 + 61 inclusive characters, overlaps summed
    assert official["snippets.precision"] == 1.0
    assert official["snippets.recall"] == pytest.approx(122 / 101)


def test_snippet_relevance_needs_a_real_overlap():
    gold = [{"id": "q1", "documents": [URL.format(1)], "snippets": [snip(1, 0, 100)]}]
    run = [{"id": "q1", "documents": [URL.format(1)], "snippets": [snip(1, 0, 100), snip(1, 200, 300)]}]
    official, reference = both(gold, run)
    # official: rank 2 is "relevant" (same document): 1 + 101/202 over min(10, 1)
    assert official["snippets.map"] == pytest.approx(1.5)
    # reference: rank 2 overlaps nothing: P@1 = 1 only
    assert reference["snippets.map"] == 1.0


def test_concepts_not_returned_are_scored():
    gold = [{"id": "q1", "concepts": ["c1"]}, {"id": "q2", "concepts": ["c2"]}]
    official, reference = both(gold, [{"id": "q1", "concepts": ["c1"]}, {"id": "q2", "concepts": []}])
    assert official["concepts.precision"] == 1.0       # q2 excluded: no submitted concept
    assert reference["concepts.precision"] == 0.5


def test_triples_are_not_filtered_before_precision():
    t = [{"s": "a", "p": "r", "o": str(i)} for i in range(4)]
    gold = [{"id": "q1", "triples": t[:2]}]
    official, reference = both(gold, [{"id": "q1", "triples": [t[2], t[0], t[3]]}])
    assert official["triples.precision"] == 1.0        # reported after keeping relevant only
    assert reference["triples.precision"] == pytest.approx(1 / 3)
    assert reference["triples.recall"] == 0.5


def test_no_gold_items_gives_no_value():
    official, reference = both([{"id": "q1", "documents": [URL.format(1)]}], [{"id": "q1"}])
    assert math.isnan(reference["triples.precision"])
    # the tool prints 0.0 for a mean over no question; the scorer gives no value (docs/measures.md)
    assert math.isnan(official["triples.precision"]) and math.isnan(official["triples.map"])
    assert official["documents.precision"] == 0.0  # the run answers q1 with no document: scored 0


def test_duplicate_run_ids_are_a_located_error_in_reference():
    gold = [{"id": "q1", "documents": [URL.format(1)]}]
    with pytest.raises(scorer.ScorerError) as info:
        both(gold, [{"id": "q1"}, {"id": "q1"}])
    assert info.value.problems[0].pointer == "/questions/1"


# --- properties ------------------------------------------------------------------

DOCS = st.integers(1, 6)
URL_FORMS = st.sampled_from([URL, "https://pubmed.ncbi.nlm.nih.gov/{}", "https://pubmed.ncbi.nlm.nih.gov/{}/", "{}"])
SECTIONS = st.sampled_from(["abstract", "title", "sections.0"])


@st.composite
def snippets(draw):
    b = draw(st.integers(0, 60))
    return snip(draw(DOCS), b, b + draw(st.integers(-3, 40)), draw(SECTIONS), draw(URL_FORMS))


@st.composite
def question(draw, qid):
    return {
        "id": qid,
        "documents": [draw(URL_FORMS).format(d) for d in draw(st.lists(DOCS, max_size=12))],
        "concepts": draw(st.lists(st.sampled_from("abcdefg"), max_size=12)),
        "snippets": draw(st.lists(snippets(), max_size=12)),
        "triples": [{"s": s, "p": "p", "o": o} for s, o in draw(st.lists(st.tuples(
            st.sampled_from("xyz"), st.sampled_from("uvw")), max_size=6))],
    }


@st.composite
def gold_and_run(draw):
    ids = [f"q{i}" for i in range(draw(st.integers(1, 5)))]
    gold = [draw(question(q)) for q in ids]
    answered = draw(st.lists(st.sampled_from(ids + ["extra"]), unique=True))
    run = [draw(question(q)) for q in answered]
    return {"questions": gold}, {"questions": run}, draw(st.sampled_from([2, 3, 5, 8, 9]))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(gold_and_run())
def test_reference_values_are_in_the_unit_interval(case):
    gold, run, edition = case
    result = scorer.evaluate(gold, run, task="phaseA", edition=edition, flavor="reference")
    for name, value in result.measures.items():
        category = name.split(".")[0]
        if result.counts[category] == 0:
            assert math.isnan(value), name
        else:
            assert 0.0 <= value <= 1.0, (name, value)
    for values in result.per_question.values():
        assert all(0.0 <= v <= 1.0 for v in values.values())


@st.composite
def clean_case(draw):
    """Inputs where no official quirk applies: every question answered with unique,
    canonical items (at most 10), at least one concept, only relevant triples."""
    n = draw(st.integers(1, 4))
    gold, run = [], []
    for i in range(n):
        g_docs = draw(st.lists(st.integers(1, 20), min_size=1, max_size=12, unique=True))
        r_docs = draw(st.lists(st.integers(1, 20), max_size=10, unique=True))
        g_con = draw(st.lists(st.sampled_from("abcdefghij"), min_size=1, max_size=8, unique=True))
        r_con = draw(st.lists(st.sampled_from("abcdefghij"), min_size=1, max_size=10, unique=True))
        g_tri = draw(st.lists(st.sampled_from("stuvwxyz"), min_size=1, max_size=8, unique=True))
        r_tri = draw(st.lists(st.sampled_from(g_tri), max_size=len(g_tri), unique=True))
        gold.append({"id": f"q{i}", "documents": [URL.format(d) for d in g_docs], "concepts": g_con,
                     "triples": [{"s": t, "p": "p", "o": "o"} for t in g_tri]})
        run.append({"id": f"q{i}", "documents": [URL.format(d) for d in r_docs], "concepts": r_con,
                    "triples": [{"s": t, "p": "p", "o": "o"} for t in r_tri]})
    return gold, run, draw(st.sampled_from([2, 3, 5, 8]))


@settings(max_examples=200, deadline=None)
@given(clean_case())
def test_flavors_agree_where_no_quirk_applies(case):
    gold, run, edition = case
    official, reference = both(gold, run, edition)
    for category in ("documents", "concepts", "triples"):
        for stat in ("precision", "recall", "f1", "map"):
            name = f"{category}.{stat}"
            assert reference[name] == pytest.approx(official[name], rel=1e-12, abs=1e-15), name
        assert reference[f"{category}.gmap"] == pytest.approx(
            max(0.0, official[f"{category}.gmap"] - GMAP_EPSILON), rel=1e-9, abs=1e-12)


# --- an extra measure (registry.PhaseAExtra) sees the list AP sees ------------------------------

@pytest.fixture()
def seen_length(monkeypatch):
    """A throw-away extra statistic ``documents.seen``: the length of the list it is given (to
    show which list that is), installed in the evaluator's tables as a PhaseAExtra would be."""
    from scorer.evaluation import phase_a
    from scorer.measures import registry, retrieval

    def seen(returned, gold):
        return float(len(returned))
    monkeypatch.setitem(retrieval.QUESTION_FORMULAS, "seen", seen)
    monkeypatch.setitem(registry.MEASURES, "documents.seen", registry.Measure(
        "documents.seen", "phaseA", "Documents seen", kernels=(registry.Kernel(seen),)))
    monkeypatch.setitem(phase_a._EXTRAS, "documents", ("seen",))
    monkeypatch.setitem(phase_a._ENTRY_NAMES, "documents", (*phase_a._ENTRY_NAMES["documents"], "documents.seen"))
    monkeypatch.setattr(phase_a, "MEASURES", (*phase_a.MEASURES, "documents.seen"))


def test_an_extra_measure_sees_the_list_ap_sees_in_each_flavor(seen_length):
    # the run repeats d1 and writes d2 both as a URL and as a bare PubMed id; d9 is not relevant
    gold = [{"id": "q1", "documents": [URL.format(1), URL.format(2)]}, {"id": "q2", "documents": [URL.format(3)]}]
    run = [{"id": "q1", "documents": [URL.format(1), URL.format(1), URL.format(2), "2", URL.format(9)]}]
    official, reference = both(gold, run)
    # official: q1 only (q2 is not answered); the tool's read de-duplicates as written: d1, d2, "2", d9
    assert official["documents.seen"] == 4.0
    # reference: de-duplicated as PubMed ids (1, 2, 9) for q1; q2 unanswered sees an empty list
    assert reference["documents.seen"] == (3 + 0) / 2


def test_an_extra_measure_sees_the_official_reductions_of_a_repeated_gold_id(seen_length):
    # the gold lists q1 twice; the official tool reduces the run's list to its relevant
    # items after the first one's AP, so the second sees d1 alone
    gold = [{"id": "q1", "documents": [URL.format(1)]}, {"id": "q1", "documents": [URL.format(1)]}]
    run = [{"id": "q1", "documents": [URL.format(1), URL.format(8), URL.format(9)]}]
    result = scorer.evaluate({"questions": gold}, {"questions": run}, task="phaseA", edition=8, flavor="official")
    assert result.measures["documents.seen"] == (3 + 1) / 2
    assert result.per_question["q1"]["documents.seen"] == 1.0  # the entry of the last gold question of the id
