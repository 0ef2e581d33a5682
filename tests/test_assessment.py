"""The expert assessment cycle: pool (blind, only what the gold lacks), judgements, merge
into the next gold version and expert scores, Cohen's kappa.  Every expected value is
worked by hand from the small inputs written here."""
from __future__ import annotations

import json
import math

import pytest

from scorer.assessment.judgements import check_judgements, new_judgements, pool_items, with_judgement
from scorer.assessment.merge import agreement, cohen_kappa, decide, manual_scores, next_gold
from scorer.assessment.pool import build_pool, readings
from scorer.formats.taskb import read_taskb
from scorer.store.files import canonical_json

URL = "http://www.ncbi.nlm.nih.gov/pubmed/"
META = {"task": "taskB", "batch": "b1", "phase": "phaseA", "gold": "gold/taskb/b1/phaseA.json", "gold_sha256": "0" * 64}
RETRIEVAL = ("documents", "snippets")
ANSWERS = ("exact_answers", "ideal_answers")


def snippet(pmid, begin, end, text, section="abstract"):
    return {"document": f"{URL}{pmid}", "beginSection": section, "endSection": section,
            "offsetInBeginSection": begin, "offsetInEndSection": end, "text": text}


GOLD_A = {"questions": [{"id": "q1", "body": "Which?", "type": "list", "documents": [f"{URL}1", f"{URL}2"],
                         "snippets": [snippet(1, 0, 10, "0123456789")]}]}
RUN_ALPHA = {"questions": [
    {"id": "q1", "documents": [f"{URL}1", "https://pubmed.ncbi.nlm.nih.gov/3/"],
     "snippets": [snippet(1, 2, 8, "234567"), snippet(3, 0, 5, "abcde")]},
    {"id": "q9", "documents": [f"{URL}99"]}]}
RUN_BETA = {"questions": [{"id": "q1", "documents": ["3", "10"],
                           "snippets": [snippet(3, 3, 9, "defghi"), snippet(3, 20, 25, "uvwxy")]}]}


def retrieval_pool():
    runs = {"phaseA/beta/s1": read_taskb(RUN_BETA), "phaseA/alpha/s1": read_taskb(RUN_ALPHA)}
    return build_pool(read_taskb(GOLD_A), runs, kinds=RETRIEVAL, meta=META)


def test_the_retrieval_pool_holds_exactly_what_the_gold_lacks_and_is_blind():
    pool = retrieval_pool()
    (question,) = pool.document["questions"]
    # PMID 1 is gold (whatever the URL form); 3 and 10 are not, in numeric order; q9 is not a gold question.
    assert question["documents"] == [{"item": "d1", "pmid": "3"}, {"item": "d2", "pmid": "10"}]
    # [2,8) of PMID 1 lies inside the gold's [0,10): held.  PMID 3: [0,5) and [3,9) overlap -> one hull
    # [0,9) whose text is stitched from both; [20,25) stands apart.
    assert question["snippets"] == [
        {"item": "s1", "pmid": "3", "beginSection": "abstract", "endSection": "abstract",
         "offsetInBeginSection": 0, "offsetInEndSection": 9, "text": "abcdefghi"},
        {"item": "s2", "pmid": "3", "beginSection": "abstract", "endSection": "abstract",
         "offsetInBeginSection": 20, "offsetInEndSection": 25, "text": "uvwxy"}]
    assert pool.key["items"] == {"q1/d1": ["phaseA/alpha/s1", "phaseA/beta/s1"], "q1/d2": ["phaseA/beta/s1"],
                                 "q1/s1": ["phaseA/alpha/s1", "phaseA/beta/s1"], "q1/s2": ["phaseA/beta/s1"]}
    text = canonical_json(pool.document).decode()
    assert "alpha" not in text and "beta" not in text


def test_the_pool_is_the_same_bytes_whatever_the_order_of_the_runs():
    runs = {"phaseA/alpha/s1": read_taskb(RUN_ALPHA), "phaseA/beta/s1": read_taskb(RUN_BETA)}
    other = build_pool(read_taskb(GOLD_A), runs, kinds=RETRIEVAL, meta=META)
    assert canonical_json(other.document) == canonical_json(retrieval_pool().document)
    assert canonical_json(other.key) == canonical_json(retrieval_pool().key)


def test_readings_never_take_one_runs_text_for_anothers():
    """Members agreeing where they overlap are one reading; a member claiming other
    characters at one position, or whose text is not the length of its range, is another."""
    agree = [(0, 5, "abcde", "x"), (3, 9, "defghi", "y")]
    assert readings(agree) == [agree]
    assert readings([(0, 5, "abcde", "x"), (3, 9, "DEFghi", "y")]) == [[(0, 5, "abcde", "x")], [(3, 9, "DEFghi", "y")]]
    assert readings([(0, 5, "abcde", "x"), (3, 9, "def", "y")]) == [[(0, 5, "abcde", "x")], [(3, 9, "def", "y")]]


def test_a_hostile_snippet_of_two_billion_characters_is_pooled_without_laying_it_out():
    """A run's snippet [0, 2^31 - 1) (offsets the reader accepts) beside a real one: its text
    cannot be its characters, so it is a reading of its own, shown as given, and no
    structure of its width is built."""
    run = {"questions": [{"id": "q1", "snippets": [snippet(3, 0, 2**31 - 1, "x"), snippet(3, 5, 10, "fghij")]}]}
    pool = build_pool(read_taskb(GOLD_A), {"phaseA/evil/s1": read_taskb(run)}, kinds=RETRIEVAL, meta=META)
    wide, real = pool.document["questions"][0]["snippets"]
    assert (wide["offsetInEndSection"], wide["text"], wide["text_complete"], wide["conflicts_with"]) == (
        2**31 - 1, "x", False, ["s2"])
    assert (real["offsetInBeginSection"], real["text"], real["conflicts_with"]) == (5, "fghij", ["s1"])


#: An honest team's snippet and an attacker's at the same place and offsets, with other text
#: that sorts first ("A" < "T").
HONEST = snippet(3, 0, 10, "True text.")
FORGED = snippet(3, 0, 10, "AAAAAAAAAA")


def conflict_pool():
    runs = {"phaseA/honest/s1": read_taskb({"questions": [{"id": "q1", "snippets": [HONEST]}]}),
            "phaseA/evil/s1": read_taskb({"questions": [{"id": "q1", "snippets": [FORGED, snippet(3, 10, 12, "!!")]}]})}
    return build_pool(read_taskb(GOLD_A), runs, kinds=RETRIEVAL, meta=META)


def test_conflicting_texts_at_one_place_are_each_shown_and_marked():
    """Each text the runs gave for characters [0, 10) of PMID 3 is an item of its own, naming
    the other; the evil run's touching [10, 12) agrees with its own text, so it joins it."""
    pool = conflict_pool()
    honest, forged = pool.document["questions"][0]["snippets"]  # by offsets: [0, 10) before [0, 12)
    assert (honest["item"], honest["offsetInBeginSection"], honest["offsetInEndSection"], honest["text"]) == (
        "s1", 0, 10, "True text.")
    assert (forged["item"], forged["offsetInBeginSection"], forged["offsetInEndSection"], forged["text"]) == (
        "s2", 0, 12, "AAAAAAAAAA!!")
    assert honest["conflicts_with"] == ["s2"] and forged["conflicts_with"] == ["s1"]
    assert pool.key["items"] == {"q1/s1": ["phaseA/honest/s1"], "q1/s2": ["phaseA/evil/s1"]}


def test_the_judgement_of_the_true_text_makes_the_gold_and_two_accepted_readings_add_nothing():
    pool = conflict_pool().document
    x = judged("x", pool, q1__s1={"relevant": True}, q1__s2={"relevant": False})
    decisions = decide(pool, [x])
    assert sorted(decisions.accepted) == ["q1/s1"] and decisions.conflicts == []
    assert next_gold(GOLD_A, pool, decisions)["questions"][0]["snippets"][-1] == HONEST
    both = decide(pool, [judged("y", pool, q1__s1={"relevant": True}, q1__s2={"relevant": True})])
    assert both.accepted == {} and sorted(both.conflicts) == ["q1/s1", "q1/s2"]
    assert next_gold(GOLD_A, pool, both) == GOLD_A


GOLD_B = {"questions": [
    {"id": "q1", "type": "factoid", "body": "Gene?", "exact_answer": [["tp53", "p53"]], "ideal_answer": ["TP53."]},
    {"id": "q2", "type": "list", "body": "Genes?", "exact_answer": [["a"], ["b"]], "ideal_answer": ["A and b."]},
    {"id": "q3", "type": "yesno", "body": "Is it?", "exact_answer": "yes", "ideal_answer": ["Yes."]}]}
RUN_B_ALPHA = {"questions": [
    {"id": "q1", "exact_answer": [["P53"], ["mdm2"]], "ideal_answer": "Answer one."},
    {"id": "q2", "exact_answer": [["b"], ["c"]], "ideal_answer": "Two."},
    {"id": "q3", "exact_answer": "no", "ideal_answer": "Yes  it is."}]}
RUN_B_BETA = {"questions": [
    {"id": "q1", "exact_answer": [["MDM2"]], "ideal_answer": "Answer   one."},
    {"id": "q2", "exact_answer": [["C"], ["d"]], "ideal_answer": ""}]}


def answer_pool():
    runs = {"phaseB/alpha/s1": read_taskb(RUN_B_ALPHA), "phaseAplus/beta/s1": read_taskb(RUN_B_BETA)}
    return build_pool(read_taskb(GOLD_B), runs, kinds=ANSWERS, meta={**META, "phase": "phaseB"})


def test_the_answer_pool():
    q1, q2, q3 = answer_pool().document["questions"]
    # "P53" is a gold synonym (lower-cased); "mdm2"/"MDM2" are one item shown in one original form.
    assert q1["exact_answers"] == [{"item": "a1", "text": "MDM2", "normalized": "mdm2"}]
    assert q1["ideal_answers"] == [{"item": "i1", "text": "Answer one."}]  # white space collapsed
    assert q1["gold_exact_answer"] == [["tp53", "p53"]] and q1["gold_ideal_answer"] == ["TP53."]
    assert [a["normalized"] for a in q2["exact_answers"]] == ["c", "d"]
    assert q2["ideal_answers"] == [{"item": "i1", "text": "Two."}]  # an empty ideal answer is no item
    assert q3["exact_answers"] == [] and q3["ideal_answers"] == [{"item": "i1", "text": "Yes it is."}]
    assert answer_pool().key["items"]["q1/a1"] == ["phaseAplus/beta/s1", "phaseB/alpha/s1"]


def judged(assessor, pool, **items):
    value = new_judgements(assessor, "f" * 64)
    for key, judgement in items.items():
        value = with_judgement(value, key.replace("__", "/"), judgement)
    assert check_judgements(value, pool, "f" * 64, f"{assessor}.json") == []
    return value


def test_merging_retrieval_judgements_gives_the_hand_worked_gold_and_kappa():
    pool = retrieval_pool().document
    x = judged("x", pool, q1__d1={"relevant": True}, q1__d2={"relevant": True},
               q1__s1={"relevant": True, "span": [2, 7]}, q1__s2={"relevant": False})
    y = judged("y", pool, q1__d1={"relevant": True}, q1__d2={"relevant": False},
               q1__s1={"relevant": True}, q1__s2={"relevant": False})
    decisions = decide(pool, [x, y])
    assert sorted(decisions.accepted) == ["q1/d1", "q1/s1"] and decisions.ties == ["q1/d2"]
    gold = next_gold(GOLD_A, pool, decisions)
    (question,) = gold["questions"]
    assert question["documents"] == [f"{URL}1", f"{URL}2", f"{URL}3"]
    # x trimmed the hull [0,9) "abcdefghi" to [2,7): "cdefg"; y accepted it whole; the span given wins.
    assert question["snippets"][-1] == snippet(3, 2, 7, "cdefg")
    assert GOLD_A["questions"][0]["documents"] == [f"{URL}1", f"{URL}2"]  # the input is not changed
    # x: T T T F, y: T F T F -> p_o = 3/4; p_e = 3/4 * 2/4 + 1/4 * 2/4 = 1/2; kappa = (3/4 - 1/2) / (1/2) = 1/2.
    assert agreement([x, y]) == [{"assessors": ["x", "y"], "items": 4, "agreement": 0.75, "kappa": 0.5}]


def test_merging_answer_judgements_gives_synonyms_new_entries_and_averaged_scores():
    pool_value = answer_pool()
    pool = pool_value.document
    scores_x = {"recall": 4, "precision": 5, "repetition": 5, "readability": 5}
    scores_y = {"recall": 3, "precision": 5, "repetition": 4, "readability": 5}
    x = judged("x", pool, q1__a1={"verdict": "synonym", "of": 0}, q2__a1={"verdict": "correct"},
               q2__a2={"verdict": "wrong"}, q1__i1=scores_x)
    y = judged("y", pool, q1__a1={"verdict": "synonym", "of": 0}, q2__a1={"verdict": "correct"},
               q2__a2={"verdict": "wrong"}, q1__i1=scores_y)
    decisions = decide(pool, [x, y])
    gold = next_gold(GOLD_B, pool, decisions)
    assert gold["questions"][0]["exact_answer"] == [["tp53", "p53", "MDM2"]]
    assert gold["questions"][1]["exact_answer"] == [["a"], ["b"], ["C"]]
    assert gold["questions"][2]["exact_answer"] == "yes"
    expected = {"recall": 3.5, "precision": 5.0, "repetition": 4.5, "readability": 5.0}
    assert manual_scores(pool_value.key, decisions, "phaseB") == {"systems": {"alpha/s1": {"q1": expected}}}
    assert manual_scores(pool_value.key, decisions, "phaseAplus") == {"systems": {"beta/s1": {"q1": expected}}}


def test_a_synonym_needs_most_accepting_assessors_else_it_is_a_new_entry():
    pool = answer_pool().document
    x = judged("x", pool, q1__a1={"verdict": "synonym", "of": 0})
    y = judged("y", pool, q1__a1={"verdict": "correct"})
    gold = next_gold(GOLD_B, pool, decide(pool, [x, y]))
    assert gold["questions"][0]["exact_answer"] == [["tp53", "p53"], ["MDM2"]]


@pytest.mark.parametrize("first, second, kappa", [
    ([True, True, False, False], [True, True, False, False], 1.0),
    ([True, False, True, False], [False, True, False, True], -1.0),
    # they differ on the 4th item only: p_o = 5/6; p_e = (4/6)(3/6) + (2/6)(3/6) = 1/2
    # -> (5/6 - 1/2) / (1/2) = 2/3
    ([True, True, True, True, False, False], [True, True, True, False, False, False], 2 / 3),
])
def test_cohen_kappa_by_hand(first, second, kappa):
    assert cohen_kappa(first, second) == pytest.approx(kappa)


def test_kappa_is_undefined_when_everything_is_one_answer():
    assert math.isnan(cohen_kappa([True, True], [True, True])) and math.isnan(cohen_kappa([], []))


@pytest.mark.parametrize("key, judgement, code", [
    ("q1/d9", {"relevant": True}, "unknown-item"),
    ("q1/d1", {"verdict": "correct"}, "wrong-judgement"),
    ("q1/s1", {"relevant": True, "span": [5, 12]}, "bad-span"),
    ("q1/d1", {"relevant": True, "span": [0, 1]}, "bad-span"),
])
def test_bad_retrieval_judgements_are_located(key, judgement, code):
    pool = retrieval_pool().document
    value = with_judgement(new_judgements("x", "f" * 64), key, judgement)
    (problem,) = check_judgements(value, pool, "f" * 64, "x.json")
    assert problem.code == code and problem.file == "x.json" and problem.pointer.startswith(f"/judgements/{key.replace('/', '~1')}")
    assert problem.fix


def test_bad_answer_judgements_and_shapes_are_located():
    pool = answer_pool().document
    value = with_judgement(new_judgements("x", "f" * 64), "q1/a1", {"verdict": "synonym", "of": 3})
    assert [p.code for p in check_judgements(value, pool, "f" * 64, "x.json")] == ["bad-synonym"]
    value = with_judgement(new_judgements("x", "f" * 64), "q1/i1", {"recall": 9, "precision": 5, "repetition": 5,
                                                                   "readability": 5})
    problems = check_judgements(value, pool, "f" * 64, "x.json")
    assert problems and all(p.pointer.startswith("/judgements/q1~1i1") for p in problems)
    assert [p.code for p in check_judgements(new_judgements("x", "e" * 64), pool, "f" * 64, "x.json")] == ["other-pool"]


def test_every_item_has_one_key():
    pool = answer_pool()
    items = pool_items(pool.document)
    assert sorted(items) == ["q1/a1", "q1/i1", "q2/a1", "q2/a2", "q2/i1", "q3/i1"]
    alpha, beta = "phaseB/alpha/s1", "phaseAplus/beta/s1"
    # By hand from RUN_B_ALPHA and RUN_B_BETA: q1 "P53" is a gold synonym, "mdm2"/"MDM2" one
    # item; q2 "b" is gold, "c"/"C" one item, "d" beta's alone; beta's empty ideal answer and
    # missing q3 give nothing; a yes/no answer is no exact-answer item.
    assert pool.key["items"] == {"q1/a1": [beta, alpha], "q1/i1": [beta, alpha], "q2/a1": [beta, alpha],
                                 "q2/a2": [beta], "q2/i1": [alpha], "q3/i1": [alpha]}
    assert json.loads(json.dumps(pool.key)) == pool.key  # plain JSON: lists and string keys only
