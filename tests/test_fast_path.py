"""The fast path of ``load_json`` (hook-free C parse vouched by ``msgspec.json.encode``) against
the located path it falls back to: the same value (types and float literals included),
the same ``Result`` and the same errors, on the conformance corpora and on random and
mutated inputs (duplicate keys, NaN, deep nesting, lone surrogates, huge integers, bad
UTF-8, BOM, trailing garbage, escaped colons, float literals where strings belong).

The located path is forced by making ``_fast_parse`` give up, as it does on any input it
cannot vouch for.
"""
from __future__ import annotations

import json
import re
from contextlib import contextmanager
from functools import partial
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import scorer
from scorer.formats import jsontext, taskb
from scorer.formats.jsontext import JsonFloat, load_json
from scorer.formats.validation import validate_taskb
from tests.conftest import conformance_cases

TREE_TEXT = "R A\nR B\nA A1\nA A2\nA1 A11\nB B1\n"


@pytest.fixture(autouse=True, scope="module")
def plain_parse_only():
    """The loader's two paths are compared here: no task's evaluation takes a typed
    reading first (tests/test_taskb_typed.py compares that one with them)."""
    from scorer import evaluation
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(evaluation, "TYPED_READINGS", {})
        yield


@contextmanager
def located_only():
    """Within the block, ``load_json`` takes the located path for every input."""
    fast = jsontext._fast_parse
    jsontext._fast_parse = lambda data: jsontext.UNSURE
    try:
        yield
    finally:
        jsontext._fast_parse = fast


class Counting:
    """Counts the inputs the fast path vouched for (so a test sees it was taken)."""

    def __init__(self, monkeypatch):
        self.vouched = 0
        fast = jsontext._fast_parse

        def counted(data):
            value = fast(data)
            self.vouched += value is not jsontext.UNSURE
            return value
        monkeypatch.setattr(jsontext, "_fast_parse", counted)


def typed(value) -> list:
    """``value`` as a flat list of tokens spelling out every type (a JsonFloat with its
    literal), for equality; iterative, so any nesting the loader accepts is fine."""
    tokens: list = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            tokens.append(("dict", list(item)))
            stack.extend(reversed(list(item.values())))
        elif isinstance(item, list):
            tokens.append(("list", len(item)))
            stack.extend(reversed(item))
        elif isinstance(item, JsonFloat):
            tokens.append(("JsonFloat", item.literal))
        else:
            tokens.append((type(item).__name__, item))
    return tokens


def outcome(call):
    """What ``call()`` gives: its value made comparable, or the problems it raises."""
    try:
        value = call()
    except scorer.ScorerError as exc:
        return ("errors", [p.to_dict() for p in exc.problems])
    if isinstance(value, scorer.Result):
        return ("result", repr(value))  # repr: NaN measures compare equal as text
    return ("value", repr(value))


def both_paths(call):
    """(fast outcome, located outcome) of ``call``."""
    fast = outcome(call)
    with located_only():
        return fast, outcome(call)


# --- the loader on random and mutated texts ---------------------------------------------

#: Literals the located loader refuses or treats specially, written into the text as they are.
RAW_TOKENS = ["NaN", "-Infinity", "Infinity", "1e400", "-1e400", "1e-400", '"\\ud800"', '"\\udc00x"',
              '"\\ud83d\\ude00"', "123456789012345678901", "18446744073709551616", "18446744073709551615",
              "-9223372036854775809", "1.50", "1E2", "-0", "-0.0", '"a\\u003ab"', '"a\\u0030"',
              '"\\\\u003a"', "[" * 70 + "]" * 70, "[" * 300 + "]" * 300, "[" * 1200 + "]" * 1200,
              '"x\\"y:z"', '"k\\\\"']


class Raw(str):
    """A token written into the JSON text as it is."""


class Pairs(list):
    """An object written with these (key, value) pairs, repeats included."""


def render(value) -> str:
    """JSON text of ``value`` with :class:`Raw` tokens and :class:`Pairs` objects as they are."""
    if isinstance(value, Raw):
        return str(value)
    if isinstance(value, Pairs):
        return "{" + ", ".join(f"{json.dumps(k)}: {render(v)}" for k, v in value) + "}"
    if isinstance(value, dict):
        return "{" + ",".join(f"{json.dumps(k)}:{render(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(render(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False)


keys = st.sampled_from(["a", "b", "id", "k:v", "\u00e9", "x\\y"]) | st.text(max_size=4)
leaves = (st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.text(max_size=8)
          | st.floats(allow_nan=False, allow_infinity=False) | st.sampled_from(RAW_TOKENS).map(Raw))
values = st.recursive(leaves, lambda inner: st.lists(inner, max_size=4)
                      | st.dictionaries(keys, inner, max_size=4)
                      | st.lists(st.tuples(keys, inner), max_size=4).map(Pairs), max_leaves=20)


@st.composite
def mutated_texts(draw) -> bytes:
    """Rendered values, then maybe a byte-level mutation (BOM, bad UTF-8, cut, garbage)."""
    data = render(draw(values)).encode("utf-8")
    mutation = draw(st.sampled_from(["none", "none", "bom", "bad-utf8", "cut", "garbage", "surrogate-bytes"]))
    at = draw(st.integers(0, len(data)))
    if mutation == "bom":
        data = b"\xef\xbb\xbf" + data
    elif mutation == "bad-utf8":
        data = data[:at] + b"\xff" + data[at:]
    elif mutation == "cut":
        data = data[:at]
    elif mutation == "garbage":
        data += draw(st.sampled_from([b" x", b"]", b"{}", b"\x00", b" \n\t "]))
    elif mutation == "surrogate-bytes":
        data = data[:at] + b"\xed\xa0\x80" + data[at:]
    return data


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_texts())
def test_loader_gives_the_same_value_or_errors_on_both_paths(data):
    def load():
        value, doc = load_json(data, name="run.json")
        return typed(value)
    fast, located = both_paths(load)
    assert fast == located


@pytest.mark.parametrize("text, refused", [
    ('{"a": 1, "a": 2}', True), ('{"a": "x:y", "a": "z"}', True), ('{"a": {"b": 1, "b": 1}}', True),
    ("[NaN]", True), ('{"x": 1e400}', True), ('["\\ud800"]', True), ('{"\\udc00": 1}', True),
    ("[123456789012345678901]", True), ("[" * 1200 + "]" * 1200, True),
    ('{"a:b": 1, "a:b": 2, "c": "\\u003a"}', True), ('\ufeff{"a": 1.50}', False),
    ('{"a": ' + "[" * 70 + "]" * 70 + ', "\\ud83d\\ude00": 1}', False),  # deep, and an escaped emoji
])
def test_what_the_located_path_refuses_or_reads_exactly_is_never_vouched_for_wrongly(text, refused):
    """Hand-picked inputs of each kind the fast path must detect (or leave to the located
    path): both paths agree, and the refused ones are refused."""
    fast, located = both_paths(lambda: typed(load_json(text.encode("utf-8"), name="f.json")[0]))
    assert fast == located
    assert fast[0] == ("errors" if refused else "value")


def test_float_literals_and_paired_surrogates_are_read_exactly_on_the_fast_path(monkeypatch):
    counting = Counting(monkeypatch)
    value, _ = load_json(b'{"id": 1.50, "s": "\\ud83d\\ude00", "n": 18446744073709551615}')
    assert counting.vouched == 1
    assert value["id"].literal == "1.50" and value["s"] == "\U0001F600" and value["n"] == 2**64 - 1


# --- whole evaluations on random and mutated runs ------------------------------------------

GOLD = {"questions": [
    {"id": "q1", "type": "factoid", "body": "b", "documents": ["http://www.ncbi.nlm.nih.gov/pubmed/1"],
     "snippets": [{"document": "http://www.ncbi.nlm.nih.gov/pubmed/1", "beginSection": "abstract",
                   "endSection": "abstract", "offsetInBeginSection": 0, "offsetInEndSection": 20, "text": "t"}],
     "concepts": ["c1"], "exact_answer": [["x"]], "ideal_answer": ["an answer"]},
    {"id": "12", "type": "yesno", "body": "b", "documents": ["http://www.ncbi.nlm.nih.gov/pubmed/2"],
     "snippets": [], "exact_answer": "yes", "ideal_answer": "yes it is"},
]}

texts = st.sampled_from(["q1", "12", "x", "http://www.ncbi.nlm.nih.gov/pubmed/1", "abstract"]) | st.text(max_size=5)
oddities = st.sampled_from(RAW_TOKENS).map(Raw) | st.integers(-3, 40) | st.none() | st.lists(texts, max_size=2)


def field(normal):
    """Mostly the normal value, sometimes an oddity."""
    return st.one_of(normal, normal, normal, oddities)


snippets = st.builds(lambda d, b, e, x, y, extra: Pairs([("document", d), ("beginSection", b), ("endSection", e),
                                                         ("offsetInBeginSection", x), ("offsetInEndSection", y)]
                                                        + extra),
                     field(texts), field(st.just("abstract")), field(st.just("abstract")),
                     field(st.integers(0, 30)), field(st.integers(0, 60)),
                     st.lists(st.tuples(st.sampled_from(["text", "document", "offset_in_begin_section"]),
                                        field(texts)), max_size=1))
questions = st.builds(lambda i, t, docs, snips, ans, extra: Pairs([("id", i), ("type", t), ("documents", docs),
                                                                   ("snippets", snips), ("exact_answer", ans)]
                                                                  + extra),
                      field(texts), field(st.sampled_from(["factoid", "yesno", "list"])),
                      field(st.lists(field(texts), max_size=3)), field(st.lists(snippets, max_size=3)),
                      field(st.lists(st.lists(field(texts), max_size=2), max_size=2) | st.just("yes")),
                      st.lists(st.tuples(st.sampled_from(["extra", "id", "concepts"]), oddities), max_size=1))
runs = st.builds(lambda qs: Pairs([("questions", qs)]), st.lists(questions, max_size=3))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(runs, st.sampled_from(["phaseA", "phaseB"]), st.sampled_from(["official", "reference"]))
def test_evaluate_and_validate_give_the_same_results_and_errors_on_both_paths(run, task, flavor):
    run_bytes, gold_bytes = render(run).encode("utf-8"), json.dumps(GOLD).encode("utf-8")
    fast, located = both_paths(lambda: scorer.evaluate(gold_bytes, run_bytes, task=task, flavor=flavor))
    assert fast == located

    def validate():
        value, doc = load_json(run_bytes, name="run.json")
        problems, _ = validate_taskb(value, doc, phase=task)
        return [p.to_dict() for p in problems]
    fast, located = both_paths(validate)
    assert fast == located


labels = st.sampled_from(["A", "A1", "A11", "B", "B1", "Z"]) | st.sampled_from(RAW_TOKENS).map(Raw)
documents = st.builds(lambda pmid, ls: Pairs([("pmid", pmid), ("labels", ls)]),
                      st.integers(1, 4) | st.sampled_from(["1", "2"]) | st.sampled_from(RAW_TOKENS).map(Raw),
                      st.lists(labels, max_size=3))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(documents, max_size=3))
def test_task_a_gives_the_same_results_and_errors_on_both_paths(tmp_path_factory, docs):
    tree = tmp_path_factory.mktemp("tree") / "hierarchy.txt"
    tree.write_text(TREE_TEXT)
    gold = json.dumps({"documents": [{"pmid": 1, "labels": ["A1"]}, {"pmid": 2, "labels": ["B1", "A"]}]})
    run = render(Pairs([("documents", docs)])).encode("utf-8")
    fast, located = both_paths(lambda: scorer.evaluate(gold.encode(), run, task="taskA", hierarchy=tree))
    assert fast == located


MCQA_GOLD = {"topics": [{"id": "t", "name": "T", "reading_tests": [{"id": "rt", "document": "d", "questions": [
    {"id": qid, "question": "?", "candidates": [{"id": c, "text": c} for c in ("1", "2", "3")], "correct": "1"}
    for qid in ("q1", "q2", "12")]}]}]}
mcqa_answers = st.builds(lambda q, a, extra: Pairs([("question", q), ("answer", a)] + extra),
                         field(st.sampled_from(["q1", "q2", "12", "q9"])), field(st.sampled_from(["1", "2", "3"]))
                         | st.none(), st.lists(st.tuples(st.sampled_from(["candidate", "answer"]), oddities),
                                               max_size=1))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(mcqa_answers, max_size=4))
def test_multiple_choice_gives_the_same_results_and_errors_on_both_paths(answers):
    run = render(Pairs([("answers", answers)])).encode("utf-8")
    gold = json.dumps(MCQA_GOLD).encode("utf-8")
    fast, located = both_paths(partial(scorer.evaluate, gold, run, task="mcqa"))
    assert fast == located


# --- the conformance corpora ------------------------------------------------------------

CORPORA = {"phaseA": ["phaseA.jsonl.gz", "phaseA_v2.jsonl.gz", "phaseA_v3.jsonl.gz", "phaseA_v9.jsonl.gz",
                      "real_sample.jsonl.gz"],
           "phaseB": ["phaseB.jsonl.gz", "phaseB_v2.jsonl.gz", "phaseB_v3.jsonl.gz", "phaseB_v9.jsonl.gz"]}
#: The ideal-answer text measures (ROUGE, BLEU) are left out for speed; the reader checks ideal answers either way.
OPTIONS: dict[str, dict] = {"phaseA": {}, "phaseB": {"ideal": False}}


@pytest.mark.parametrize("task, name", [(task, name) for task, names in CORPORA.items() for name in names])
def test_conformance_corpus_gives_the_same_results_and_errors_on_both_paths(task, name, monkeypatch):
    cases = conformance_cases(name)
    if not cases:
        pytest.skip(f"../shared/conformance/{name} is absent")
    counting = Counting(monkeypatch)
    for case in cases:
        gold = json.dumps(case["gold"]).encode("utf-8")
        run = json.dumps(case["submission"], ensure_ascii=False, indent=1).encode("utf-8")
        for flavor in ("official", "reference"):
            fast, located = both_paths(partial(scorer.evaluate, gold, run, task=task, edition=case["version"],
                                               flavor=flavor, **OPTIONS[task]))
            assert fast == located, f"{case['id']} -e{case['version']} {flavor}"
    assert counting.vouched >= len(cases)  # the fast path was taken, not only the located one


def test_task_a_conformance_corpus_gives_the_same_results_on_both_paths(monkeypatch):
    cases = conformance_cases("taskA.jsonl.gz")
    tree = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "mesh2016" / "mesh_hierarchy.txt"
    if not cases or not tree.exists():
        pytest.skip("../shared/conformance/taskA.jsonl.gz or the MeSH 2016 hierarchy is absent")
    counting = Counting(monkeypatch)
    for case in cases:
        gold, run = ({"documents": [{"pmid": i, "labels": line} for i, line in enumerate(case[side])]}
                     for side in ("gold", "submission"))
        fast, located = both_paths(partial(scorer.evaluate, json.dumps(gold).encode(), json.dumps(run).encode(),
                                           task="taskA", hierarchy=tree))
        assert fast == located, case["id"]
    assert counting.vouched >= len(cases)


# --- the typed records: well-formed questions read without pointers ----------------------

@contextmanager
def questions_read_member_by_member():
    """Within the block, ``read_taskb`` reads every question member by member (as it does
    any question ``_plain_question`` does not vouch for)."""
    plain = taskb._plain_question
    taskb._plain_question = lambda value, index: None
    try:
        yield
    finally:
        taskb._plain_question = plain


def read_outcome(text: bytes):
    """The questions ``read_taskb`` reads from ``text`` (every field, as repr), or its errors."""
    def read():
        questions = taskb.read_taskb(*load_json(text, name="run.json")).questions
        return [(q.id, q.index, q.type, q.body, q.documents, q.concepts, q.snippets, q.triples,
                 q.exact_answer, q.ideal_answer, q.has_exact_answer) for q in questions]
    fast = outcome(read)
    with questions_read_member_by_member():
        return fast, outcome(read)


triples = st.builds(lambda s, p, o, extra: Pairs([("s", s), ("p", p), ("o", o)] + extra),
                    field(texts), field(texts), field(texts | st.none()),
                    st.lists(st.tuples(st.sampled_from(["x", "s"]), oddities), max_size=1))
full_questions = st.builds(
    lambda q, body, concepts, trip, ideal, deep: Pairs(list(q) + [("body", body), ("concepts", concepts),
                                                                  ("triples", trip), ("ideal_answer", ideal),
                                                                  ("other", deep)]),
    questions, field(texts), field(st.lists(field(texts), max_size=2)), field(st.lists(triples, max_size=2)),
    field(texts | st.lists(texts, max_size=2)), st.sampled_from([Raw("[" * 4 + "]" * 4), Raw("[" * 6 + "]" * 6), 1]))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(full_questions | questions, max_size=3))
def test_well_formed_questions_read_the_same_without_pointers(qs):
    fast, slow = read_outcome(render(Pairs([("questions", qs)])).encode("utf-8"))
    assert fast == slow


def test_complete_snippets_and_triples_take_the_pointer_free_reading(monkeypatch):
    calls = []
    slow = taskb._Reader.question
    monkeypatch.setattr(taskb._Reader, "question", lambda self, value, index: calls.append(index) or slow(self, value, index))
    text = json.dumps({"questions": [GOLD["questions"][0] | {"triples": [{"s": "a", "p": "b", "o": "c"}]},
                                     GOLD["questions"][1]]}).encode()
    fast, slow_outcome = read_outcome(text)
    assert fast == slow_outcome and fast[0] == "value"
    assert calls == [0, 1]  # read member by member only when forced: the fast reading vouched for both


@given(st.text(st.sampled_from(':\\u03aA"0x\u00e9'), max_size=12))
def test_the_colon_count_and_escape_check_see_what_the_text_holds(text):
    data = text.encode("utf-8")
    escaped = text.count("\\u003a") + text.count("\\u003A")
    assert jsontext._colons(data) == text.count(":")
    assert jsontext._escaped_colons(data) == escaped
    assert jsontext._escaped_colons_from(np.frombuffer(data, np.uint8), 0) == escaped  # past the few backslashes


#: JSON values whose keys are ASCII names, with strings full of what colons may follow.
_NAMED = st.recursive(
    st.none() | st.integers(-5, 5) | st.text(st.sampled_from(':"\\ {}ab\u00e9'), max_size=8),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.text(st.sampled_from("abXY09_"), min_size=1, max_size=4).filter(lambda k: k[-1] != "_"),
                      inner, max_size=3),
    max_leaves=12)


def _members(value: object) -> int:
    if isinstance(value, dict):
        return len(value) + sum(map(_members, value.values()))
    return sum(map(_members, value)) if isinstance(value, list) else 0


def _strings(value: object) -> list[str]:
    if isinstance(value, dict):
        return [*value, *(s for v in value.values() for s in _strings(v))]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return [value] if isinstance(value, str) else []


@given(_NAMED, st.sampled_from([None, 0, 2]), st.sampled_from([(",", ":"), (", ", ": "), (",", " : "), (",", "\n:\t")]),
       st.booleans())
def test_members_at_most_bounds_the_members_of_a_text_whose_keys_are_names(value, indent, separators, ascii_only):
    """At least the members, whatever the layout; exactly when no string holds a colon."""
    data = json.dumps(value, indent=indent, separators=separators, ensure_ascii=ascii_only).encode()
    bound = jsontext.members_at_most(data)
    assert bound >= _members(value)
    if not any(":" in s for s in _strings(value)):
        assert bound == _members(value)


def test_escaped_colons_past_the_backslashes_looked_at_one_by_one_are_counted():
    """More backslashes than :data:`jsontext._FEW_BACKSLASHES`: the numpy count takes over
    at the next one, counting each escape once (one escape straddles the hand-over)."""
    few = jsontext._FEW_BACKSLASHES
    text = "\\\\" * (few // 2) + "\\u003a" + '"\\u003A:\\u003b\\\\u003a' * 1000 + "\\u003"
    assert jsontext._escaped_colons(text.encode()) == text.count("\\u003a") + text.count("\\u003A") == 2001


def test_a_file_read_on_the_fast_path_is_decoded_only_to_locate_a_problem():
    """The fast path keeps the bytes (decoding 40 MB costs a sixth of a bare json.load) and
    decodes them when a reader locates a problem: a byte order mark and a character of two
    bytes before the place still give its line and column in characters."""
    data = '\ufeff{"questions": [\n {"id": "q1",\n  "body": "café", "documents": null}]}'.encode()
    value, doc = load_json(data, name="run.json")
    assert doc.text is None
    with pytest.raises(scorer.ScorerError) as caught:
        taskb.read_taskb(value, doc)
    [problem] = caught.value.problems
    assert (problem.code, problem.pointer, problem.line, problem.column) == (
        "null-value", "/questions/0/documents", 3, 32)
    assert doc.text is not None and doc.text.startswith('{"questions"')


@given(st.lists(st.sampled_from(["0", "9", "12345678", "1" * 13, "a", ":", "/", "\u00e9"]), max_size=40),
       st.integers(0, 7))
def test_the_long_digit_search_finds_every_run_of_more_than_20_digits(pieces, shift):
    """The numpy search (aligned words, then windows) against a plain search of the text,
    at every alignment of the runs (``shift`` bytes before them)."""
    data = ("x" * shift + "".join(pieces)).encode("utf-8")
    assert jsontext._long_digits(data) == (re.search(b"[0-9]{21}", data) is not None)


# --- one reading pass: the run's warnings from the records scoring read ---------------------

def test_scoring_a_well_formed_phase_a_run_reads_it_once(monkeypatch):
    """``scorer.evaluate`` gives ``validate``'s warnings of a well-formed run from the
    records it scored: no question is looked at again by the validator's check."""
    from scorer.formats import validation
    looked_at = []
    check = validation._nothing_to_fix
    monkeypatch.setattr(validation, "_nothing_to_fix", lambda q: looked_at.append(q) or check(q))
    run = {"questions": [{k: v for k, v in q.items() if k not in ("exact_answer", "ideal_answer")}
                         for q in GOLD["questions"]]}
    result = scorer.evaluate(GOLD, run, task="phaseA")
    assert looked_at == []
    value, doc = load_json(json.dumps(run).encode(), name="run")
    assert result.warnings == validation.run_warnings("phaseA", value, doc)  # none here, by validate too


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(full_questions | questions, max_size=4), st.sampled_from(["phaseA", "phaseB"]))
def test_the_warnings_told_from_the_read_run_are_those_of_validate(qs, task):
    """The warnings ``run_warnings`` gives from the records ``read_taskb`` read (only the
    questions they cannot vouch for looked at) are those it gives looking at every
    question: the same codes, messages, places and order."""
    from scorer.formats.validation import run_warnings
    try:
        value, doc = load_json(render(Pairs([("questions", qs)])).encode("utf-8"), name="run.json")
        read = taskb.read_taskb(value, doc)
    except scorer.ScorerError:
        return  # not scored: no warnings given
    assert run_warnings(task, value, doc, read) == run_warnings(task, value, doc)
