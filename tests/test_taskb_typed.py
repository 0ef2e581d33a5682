"""The typed reading of Task B files (:mod:`scorer.formats.taskb_typed`) against the plain
parse and the reader: it gives exactly the reader's records or declines, and
``scorer.evaluate`` gives the same result, warnings and errors with and without it, on
random and mutated runs, on hand-made hostile texts, on the conformance corpora and on
BioASQ's real files.
"""
from __future__ import annotations

import json
from functools import partial
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import scorer
from scorer import evaluation
from scorer.evaluation.pairing import pairing_problems
from scorer.formats import taskb_typed
from scorer.formats.jsontext import load_json
from scorer.formats.taskb import read_taskb
from scorer.formats.taskb_typed import read_typed
from tests.conftest import DATA, conformance_cases
from tests.test_fast_path import CORPORA, GOLD, Pairs, Raw, full_questions, outcome, questions, render, runs


def records(read) -> list:
    """Every field of every question record (comparable)."""
    return [(q.id, q.index, q.type, q.body, q.documents, q.concepts, q.snippets, q.triples, q.exact_answer,
             q.ideal_answer, q.has_exact_answer) for q in read.questions]


def plain_reading(data: bytes):
    """What the plain parse and the reader give: the records, or the problems raised."""
    try:
        read = read_taskb(*load_json(data, name="run.json"))
    except scorer.ScorerError as exc:
        return "errors", [p.to_dict() for p in exc.problems]
    return "records", records(read), read.read_by_member


def typed_agrees(data: bytes) -> bool:
    """Whether the typed reading of ``data`` declines or gives what the plain reading gives
    (asserted); True when it read the file."""
    typed = read_typed(data, "run.json")
    if typed is None:
        return False
    assert plain_reading(data) == ("records", records(read_taskb(*typed)), [])
    return True


def without_typed_reading(call):
    """``outcome(call)`` with no typed reading in ``scorer.evaluate``."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(evaluation, "TYPED_READINGS", {})
        return outcome(call)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(full_questions | questions, max_size=4), st.booleans())
def test_the_typed_reading_gives_the_reader_records_or_declines(qs, pretty):
    data = render(Pairs([("questions", qs)])).encode("utf-8")
    typed_agrees(json.dumps(json.loads(data), indent=2).encode() if pretty and _parses(data) else data)


def _parses(data: bytes) -> bool:
    try:
        json.loads(data)
    except ValueError:
        return False
    return True


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(runs, st.sampled_from(["official", "reference"]), st.sampled_from([5, 9]))
def test_evaluate_gives_the_same_outcome_with_and_without_the_typed_reading(run, flavor, edition):
    run_bytes, gold_bytes = render(run).encode("utf-8"), json.dumps(GOLD).encode("utf-8")
    call = partial(scorer.evaluate, gold_bytes, run_bytes, task="phaseA", flavor=flavor, edition=edition)
    assert outcome(call) == without_typed_reading(call)


SNIPPET = {"document": "http://www.ncbi.nlm.nih.gov/pubmed/1", "beginSection": "abstract",
           "endSection": "abstract", "offsetInBeginSection": 0, "offsetInEndSection": 20, "text": "t"}
QUESTION = {"id": "q1", "type": "factoid", "body": "b", "documents": ["http://www.ncbi.nlm.nih.gov/pubmed/1"],
            "snippets": [SNIPPET], "concepts": ["c1"], "triples": [{"s": "a", "p": "b", "o": "c"}]}


def text_with(question: str = "", snippet: str = "", top: str = "") -> bytes:
    """The JSON text of one question with ``question``, ``snippet`` and ``top`` written
    into its question object, its snippet object and the file's object as they are."""
    snippet_text = json.dumps(SNIPPET)[:-1] + snippet + "}"
    body = json.dumps({k: v for k, v in QUESTION.items() if k != "snippets"})[:-1]
    return ('{"questions": [' + body + ', "snippets": [' + snippet_text + "]" + question + "}]" + top + "}").encode()


#: Texts the typed reading must decline: what the plain parse refuses, or reads as the
#: reader reads it only member by member, or would read differently.
DECLINED = {
    "a key repeated in a snippet": text_with(snippet=', "text": "again"'),
    "a key repeated in a question": text_with(question=', "body": "again"'),
    "the questions repeated": text_with(top=', "questions": []'),
    "a key repeated with whitespace before its colon": text_with(snippet=', "text" \n\t : "again"'),
    "a key repeated, escaped": text_with(question=', "bod\\u0079": "again"'),
    "a key repeated, the text's strings without colons": text_with(snippet=', "document": "x"').replace(
        b"http://www.ncbi.nlm.nih.gov/pubmed/1", b"pubmed-1"),
    "a key repeated in an answer's object": text_with(question=', "exact_answer": {"a": 1, "a": 2}'),
    "an object inside an answer": text_with(question=', "exact_answer": [["a"], {"b": "c"}]'),
    "an object as _body": text_with(question=', "_body": {"text": "q"}'),
    "an unknown question member": text_with(question=', "extra": 1'),
    "an unknown snippet member": text_with(snippet=', "offset_in_begin_section": 1'),
    "an unknown member of the file": text_with(top=', "extra": 1'),
    "an integer of 21 digits in an answer": text_with(question=', "exact_answer": [123456789012345678901]'),
    "an integer of 21 digits in _body": text_with(question=', "_body": -123456789012345678901'),
    "an answer nested too deep": text_with(question=', "exact_answer": [[[[["x"]]]]]'),
    "_type nested too deep": text_with(question=', "_type": ' + "[" * 6 + "]" * 6),
    "a document of slashes": text_with().replace(b'"http://www.ncbi.nlm.nih.gov/pubmed/1", "beginSection"',
                                                 b'"//", "beginSection"'),
    "a document of escaped slashes": text_with().replace(
        b'"http://www.ncbi.nlm.nih.gov/pubmed/1", "beginSection"', b'"\\/\\u002F", "beginSection"'),
    "an offset beyond 32 bits": text_with().replace(b'"offsetInEndSection": 20', b'"offsetInEndSection": 2147483648'),
    "an offset written as a string": text_with().replace(b'"offsetInEndSection": 20', b'"offsetInEndSection": "20"'),
    "a boolean offset": text_with().replace(b'"offsetInEndSection": 20', b'"offsetInEndSection": true'),
    "a fractional offset": text_with().replace(b'"offsetInEndSection": 20', b'"offsetInEndSection": 20.0'),
    "a null text": text_with().replace(b'"text": "t"', b'"text": null'),
    "a snippet without text": text_with().replace(b', "text": "t"', b""),
    "a numeric id": text_with().replace(b'"id": "q1"', b'"id": 1'),
    "a number too large for a float": text_with(question=', "ideal_answer": 1e400'),
    "NaN": text_with(question=', "ideal_answer": NaN'),
    "a lone surrogate": text_with(question=', "ideal_answer": "\\ud800"'),
    "an escaped colon hiding a repeated key": text_with(snippet=', "text": "a\\u003ab"'),
    "invalid JSON": text_with()[:-1],
    "not UTF-8": text_with().replace(b'"b"', b'"\xff"'),
}


@pytest.mark.parametrize("name", DECLINED)
def test_the_typed_reading_declines_what_it_cannot_vouch_for(name):
    data = DECLINED[name]
    assert read_typed(data, "run.json") is None
    loaded = load_json(data, reading=read_typed) if plain_reading(data)[0] == "records" else None
    assert loaded is None or loaded[1].read is None  # the plain parse then reads it


#: Texts the typed reading reads, with what the plain reading gives.
READ = {
    "the plain question": text_with(),
    "a document ending with a slash": text_with().replace(b'pubmed/1", "beginSection"', b'pubmed/1/", "beginSection"'),
    "an escaped slash": text_with().replace(b'pubmed/1"', b'pubmed\\/1"'),
    "a byte order mark": b"\xef\xbb\xbf" + text_with(),
    "answers and BioASQ's revision members": text_with(
        question=', "exact_answer": [["a", "b"], ["c"]], "ideal_answer": ["x"], "_body": "old", "_type": "list"'),
    "an answer of null and an integer of 20 digits": text_with(
        question=', "exact_answer": null, "ideal_answer": 99999999999999999999'),
    "float literals kept as written": text_with(question=', "exact_answer": [1.50, 1E2]'),
    "paired surrogates and escapes": text_with(question=', "ideal_answer": "\\ud83d\\ude00 \\u00e9 \\"q\\": a"'),
    "pretty-printed": json.dumps(json.loads(text_with()), indent=4).encode(),
    "no question": b'{"questions": []}',
    "missing members": b'{"questions": [{"id": "q"}, {}]}',
}
#: Texts whose strings hold colons the bound of the text's members counts
#: (:func:`scorer.formats.jsontext.members_at_most`): the re-encoding vouches for them.
READ_BY_RE_ENCODING = {
    "a text with an escaped quote, a space and a colon": text_with().replace(b'"text": "t"', b'"text": "\\" : t"'),
    "a text with two spaces before a colon": text_with().replace(b'"text": "t"', b'"text": "t  : u"'),
}
#: Texts the member count alone vouches for: colons in strings after a letter, an opening
#: quote, an escaped quote or one space; members written with spaces around their colon.
READ_BY_COUNT = {
    "the plain question": text_with(),
    "colons in strings": text_with(question=r', "ideal_answer": [": a", "b : c", "d:e", "\":\""]'),
    "spaces around members' colons": text_with().replace(b'": ', b'"  :\n '),
    "pretty-printed": READ["pretty-printed"],
}
READ |= READ_BY_RE_ENCODING | READ_BY_COUNT


@pytest.mark.parametrize("name", READ)
def test_the_typed_reading_reads_well_formed_files_as_the_reader_does(name):
    assert typed_agrees(READ[name])


def test_a_view_answers_the_pairing_checks_as_the_plain_value():
    """Pairing looks at the members of questions (shapes, ids, bodies, the run being the
    gold itself): a view gives the same problems as the plain value."""
    gold, run, test_set = text_with(question=', "exact_answer": "x"'), text_with(), b'{"questions": [{"id": "q1"}]}'
    for pair in ((gold, run), (run, run), (run, gold), (test_set, run), (run, test_set)):
        views = [load_json(data, reading=read_typed) for data in pair]
        plain = [load_json(data) for data in pair]
        assert all(doc.read is not None for _, doc in views)
        assert ([p.to_dict() for p in pairing_problems("phaseA", *views)]
                == [p.to_dict() for p in pairing_problems("phaseA", *plain)])


def test_warnings_that_need_the_plain_run_are_those_of_the_plain_reading():
    """A run whose documents are in another form (which validation warns about) is read
    typed; its warnings, told from the plain value parsed anew, are the plain reading's."""
    https = text_with().replace(b'"http://www.ncbi.nlm.nih.gov/pubmed/1"', b'"https://pubmed.ncbi.nlm.nih.gov/1/"')
    gold = text_with(question=', "exact_answer": "x"')
    assert read_typed(https, "run") is not None
    call = partial(scorer.evaluate, gold, https, task="phaseA")
    result = outcome(call)
    assert result == without_typed_reading(call)
    assert "document-form" in result[1]


@pytest.mark.parametrize("name", CORPORA["phaseA"])
def test_conformance_corpus_gives_the_same_results_with_and_without_the_typed_reading(name):
    cases = conformance_cases(name)
    if not cases:
        pytest.skip(f"../shared/conformance/{name} is absent")
    typed = 0
    for case in cases:
        gold = json.dumps(case["gold"]).encode("utf-8")
        run = json.dumps(case["submission"], ensure_ascii=False, indent=1).encode("utf-8")
        typed += read_typed(run, "run") is not None
        for flavor in ("official", "reference"):
            call = partial(scorer.evaluate, gold, run, task="phaseA", edition=case["version"], flavor=flavor)
            assert outcome(call) == without_typed_reading(call), f"{case['id']} -e{case['version']} {flavor}"
    assert typed >= len(cases) / 2  # the typed reading was taken, not only the plain one


def real_files() -> list[Path]:
    return sorted(path for folder in ("golden", "runs", "testsets")
                  for path in (DATA / "bioasq-real" / folder).glob("*.json"))


@pytest.mark.parametrize("by_count", [True, False])
def test_the_member_count_vouches_for_ordinary_texts_and_the_re_encoding_for_the_others(by_count, monkeypatch):
    """A repeated key keeps its last value: the typed reading counts the members it read
    against a bound of the text's, and re-encodes only when that bound counts colons of
    strings.  Each text is read as the reader reads it, by the path its kind takes (the
    real golden files by the count alone)."""
    re_encoded = []
    keeps = taskb_typed.keeps_every_key
    monkeypatch.setattr(taskb_typed, "keeps_every_key", lambda data, value: re_encoded.append(1) or keeps(data, value))
    texts = READ_BY_COUNT if by_count else READ_BY_RE_ENCODING
    for name, data in texts.items():
        re_encoded.clear()
        assert typed_agrees(data), name
        assert bool(re_encoded) is not by_count, name
    for path in real_files() if by_count else ():
        if path.parent.name == "golden":
            re_encoded.clear()
            assert typed_agrees(path.read_bytes()) and not re_encoded, path.name


def test_real_bioasq_files_are_read_typed_as_the_reader_reads_them():
    """Every real golden file, run and test set: the typed reading gives the reader's
    records or declines; it reads every golden file and test set (Gson's escapes
    included), and declines only runs the reader refuses or reads member by member (the
    Phase A runs whose sections are lists)."""
    files = real_files()
    if not files:
        pytest.skip("../shared/data/bioasq-real is absent")
    read = {path.name for path in files if typed_agrees(path.read_bytes())}
    must = {path.name for path in files if path.parent.name in ("golden", "testsets")}
    assert must <= read, sorted(must - read)
    for path in files:
        if path.name not in read and path.parent.name == "runs":
            plain = plain_reading(path.read_bytes())
            assert plain[0] == "errors" or plain[2], path.name


def test_real_phase_a_runs_score_the_same_with_and_without_the_typed_reading():
    files = [path for path in real_files() if path.name.endswith("_phaseA.json")]
    if not files:
        pytest.skip("../shared/data/bioasq-real is absent")
    for run in files:
        gold = DATA / "bioasq-real" / "golden" / (run.name.split("_")[0] + "_golden.json")
        call = partial(scorer.evaluate, gold, run, task="phaseA", edition=9)
        assert outcome(call) == without_typed_reading(call), run.name


def test_the_typed_reading_holds_no_raw_tokens_the_plain_parse_reads_otherwise():
    """Each of the fast-path test's special tokens, as an answer: declined or read alike."""
    from tests.test_fast_path import RAW_TOKENS
    for token in RAW_TOKENS:
        typed_agrees(text_with(question=f', "ideal_answer": {render(Raw(token))}'))
