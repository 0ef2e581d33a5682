"""The validator reports every problem at once, located, each with a fix."""
from __future__ import annotations

import json

import pytest

from scorer.cli import main
from scorer.core.errors import ScorerError
from scorer.formats.jsontext import load_json
from scorer.formats.validation import validate_taskb

URL = "http://www.ncbi.nlm.nih.gov/pubmed/{}"


def snippet(doc="1", b=0, e=10, **extra):
    s = {"document": URL.format(doc), "text": "t", "beginSection": "abstract", "endSection": "abstract",
         "offsetInBeginSection": b, "offsetInEndSection": e}
    s.update(extra)
    return s


def run_text(*questions) -> str:
    return json.dumps({"questions": list(questions)}, indent=1)


def problems_of(text: str | bytes, **kwargs):
    try:
        value, doc = load_json(text.encode() if isinstance(text, str) else text, name="run.json", **kwargs)
    except ScorerError as exc:
        return exc.problems
    return validate_taskb(value, doc)[0]


def codes(problems):
    return [p.code for p in problems]


def test_a_valid_run_has_no_problem():
    assert problems_of(run_text({"id": "q1", "documents": [URL.format(1)], "snippets": [snippet()]})) == []


@pytest.mark.parametrize("text, code, line, column", [
    ('{"questions": [\n  {"id": "q1",, }]}', "invalid-json", 2, 15),
    ("", "empty-file", 1, 1),
    ("   \n ", "empty-file", 1, 1),
    ('{"questions": [{"id": "q1"}], "questions": []}', "duplicate-key", 1, 31),
    ('{"questions": [{"id": "q1", "score": NaN}]}', "non-finite-number", 1, 38),
    ('{"questions": [{"id": "q1", "score": -Infinity}]}', "non-finite-number", 1, 38),
])
def test_lexical_problems_are_located(text, code, line, column):
    [problem] = problems_of(text)
    assert (problem.code, problem.line, problem.column) == (code, line, column)
    assert problem.fix and problem.file == "run.json"


def test_non_utf8_is_located():
    [problem] = problems_of(b'{"questions": [\n{"id": "caf\xe9"}]}')
    assert (problem.code, problem.line, problem.column) == ("not-utf8", 2, 12)


def test_every_lexical_problem_is_reported_at_once():
    text = '{"questions": [{"id": "q1", "id": "q2", "x": NaN}, {"id": "q3", "y": Infinity}]}'
    assert codes(problems_of(text)) == ["duplicate-key", "non-finite-number", "non-finite-number"]


def test_deep_nesting_is_rejected_without_recursion_error():
    text = '{"questions": [{"id": "q1", "x": ' + "[" * 100_000 + "]" * 100_000 + "}]}"
    problems = problems_of(text)
    assert codes(problems) == ["too-deep"]
    assert problems[0].line == 1 and problems[0].pointer.startswith("/questions/0/x")


def test_deep_nesting_within_the_parser_limit_is_still_too_deep_for_scoring():
    import scorer
    text = '{"questions": [{"id": "q1", "x": ' + "[" * 50 + "]" * 50 + "}]}"
    with pytest.raises(ScorerError) as info:
        scorer.evaluate({"questions": [{"id": "q1"}]}, text, task="phaseA")
    assert info.value.problems[0].code == "too-deep"


def test_size_limit():
    [problem] = problems_of(run_text({"id": "q1"}), max_bytes=10)
    assert problem.code == "too-large" and "limit" in problem.message


def test_structural_problems_are_all_reported_with_question_ids():
    text = run_text(
        {"id": "q1", "documents": "http://x/1", "snippets": [snippet(b=-3, e=5)]},
        {"id": "q1", "snippets": [snippet(b=20, e=10)]},
        {"documents": [5, None]},
        {"id": 7, "type": "Yesno"},
    )
    problems = problems_of(text)
    found = {(p.code, p.question_id) for p in problems}
    assert ("string-instead-of-list", "q1") in found
    assert ("negative-offset", "q1") in found
    assert ("duplicate-id", "q1") in found
    assert ("end-before-begin", "q1") in found
    assert ("missing-member", None) in found          # the third question has no id
    assert ("wrong-type", None) in found               # ... and a null document
    assert ("number-instead-of-string", "7") in found  # a numeric id, fixable
    assert any(p.code == "schema-enum" for p in problems)  # "Yesno"
    assert all(p.line and p.column and p.pointer is not None and p.fix for p in problems)
    # lines follow the file: problems are sorted by position
    assert [p.line for p in problems] == sorted(p.line for p in problems)


def test_participant_variants_are_named_with_the_exact_fix():
    bad = {"document": "https://pubmed.ncbi.nlm.nih.gov/123/", "offset_in_begin_section": "5",
           "offset_in_end_section": 9.0, "begin_section": ["abstract"], "endSection": ["abstract"],
           "score": 0.93, "text": "t"}
    problems = problems_of(run_text({"id": "q1", "documents": ["123"], "articles": [], "snippets": [bad]}))
    by_code = {p.code: p for p in problems}
    renames = {p.fix for p in problems if p.code == "snippet-key-variant"}
    assert renames == {'rename "offset_in_begin_section" to "offsetInBeginSection"',
                       'rename "offset_in_end_section" to "offsetInEndSection"',
                       'rename "begin_section" to "beginSection"'}
    assert by_code["list-valued-section"].fix == 'write the string "abstract"'
    assert by_code["unknown-snippet-key"].fix == 'remove "score"'
    assert by_code["number-as-string"].fix == "write 5 without quotes"
    assert by_code["integral-float"].severity == "warning"
    assert by_code["document-form"].fix.startswith('write "http://www.ncbi.nlm.nih.gov/pubmed/123"')
    assert not any(p.code in ("wrong-type", "missing-member", "unknown-member") for p in problems)


def test_normalize_writes_a_valid_file_that_keeps_the_meaning(tmp_path):
    bad = {"document": "123", "offset_in_begin_section": "5", "offset_in_end_section": 9.0,
           "begin_section": ["sections.0"], "end_section": ["sections.0"], "score": 1}
    source = tmp_path / "run.json"
    source.write_text(run_text({"id": 42, "articles": ["PMID:123"], "snippets": [bad]}))
    out = tmp_path / "fixed.json"
    assert main(["validate", str(source)]) == 1
    assert main(["normalize", str(source), str(out)]) == 0
    assert main(["validate", str(out)]) == 0
    fixed = json.loads(out.read_text())
    assert fixed == {"questions": [{"id": "42", "documents": [URL.format(123)], "snippets": [
        {"document": URL.format(123), "offsetInBeginSection": 5, "offsetInEndSection": 9,
         "beginSection": "sections.0", "endSection": "sections.0"}]}]}


def test_normalize_refuses_what_it_cannot_fix(tmp_path, capsys):
    source = tmp_path / "run.json"
    source.write_text(run_text({"id": "q1", "snippets": [snippet(b=-1)]}))
    assert main(["normalize", str(source), str(tmp_path / "out.json")]) == 1
    assert "negative" in capsys.readouterr().err


def test_validate_json_output_and_gold_coverage(tmp_path, capsys):
    gold = tmp_path / "gold.json"
    gold.write_text(run_text({"id": "q1", "documents": [URL.format(1)]}, {"id": "q2", "documents": []}))
    run = tmp_path / "run.json"
    run.write_text(run_text({"id": "q1"}, {"id": "q9"}))
    assert main(["validate", str(run), "--gold", str(gold), "--format", "json"]) == 0  # warnings only
    report = json.loads(capsys.readouterr().out)
    assert report["valid"] is True
    assert {p["code"] for p in report["problems"]} == {"missing-questions", "unknown-question"}


def test_gold_files_validate_as_gold(tmp_path):
    from tests.conftest import shared_path
    gold = shared_path("data", "bioasq-real", "golden", "11B1_golden.json")
    assert main(["validate", str(gold), "--role", "gold"]) == 0


def test_cli_usage_errors_exit_2(capsys):
    with pytest.raises(SystemExit) as info:
        main(["score", "run.json"])
    assert info.value.code == 2
    with pytest.raises(SystemExit) as info:
        main(["validate", "x.json", "--task", "nope"])
    assert info.value.code == 2


def test_a_schema_error_is_located_with_the_fix_of_its_schema_place():
    """An error of a ``$ref``'d part of the schema is located in the value (its path) and
    carries the keyword and the x-fix of the part it failed (team.schema.json $defs/name)."""
    from scorer import schemas
    team = {"name": "ok", "members": ["a"], "systems": [{"id": "s", "name": "S", "description": "d"}]}
    assert schemas.schema_errors("team.schema.json", team) == []
    errors = schemas.schema_errors("team.schema.json", {**team, "name": "x\u202e"})
    assert len(errors) == 1 and errors[0].path == ("name",) and errors[0].keyword == "pattern"
    assert errors[0].message == '"x\u202e" is not a value allowed here'
    assert errors[0].schema["x-fix"].startswith('name = "Team Alpha": one line')
    (error,) = schemas.schema_errors("team.schema.json", {**team, "systems": [{**team["systems"][0], "id": 5}]})
    assert error.path == ("systems", 0, "id") and error.message == "5 is not of type 'string'"
    assert error.keyword_value == "string" and error.schema["x-fix"] == "use a lowercase slug: letters a-z, digits and '-'"


def test_no_schema_pattern_ends_with_a_dollar():
    """In Python's re (and so in a reader's eyes) ``$`` also matches before a final
    newline; patterns end with ``(?![\\s\\S])`` so "slug\\n" is refused in any dialect."""
    from scorer.schemas import load_schema, schema_names

    def patterns(node):
        if isinstance(node, dict):
            if isinstance(node.get("pattern"), str):
                yield node["pattern"]
            for child in node.values():
                yield from patterns(child)
        elif isinstance(node, list):
            for child in node:
                yield from patterns(child)

    found = {name: [p for p in patterns(load_schema(name)) if p.endswith("$")] for name in schema_names()}
    assert not any(found.values()), found


def test_errors_past_the_first_part_and_under_deep_nesting_are_found():
    """The first look at an invalid value checks its first ERROR_SEARCH_ITEMS items; an
    error further on is still found, at its place, and a value nested deeper than the
    compiled check can describe (300 levels) gives located errors, not a crash."""
    from scorer import schemas
    name = "taskb-phaseA-run.schema.json"
    questions = [{"id": f"q{i}"} for i in range(schemas.ERROR_SEARCH_ITEMS + 1000)]
    questions[-1] = {"id": 5}
    (error,) = schemas.schema_errors(name, {"questions": questions})
    assert error.path == ("questions", len(questions) - 1, "id") and error.keyword == "type"
    deep: list = []
    for _ in range(300):
        deep = [deep]
    errors = schemas.schema_errors(name, {"questions": [{"id": "q1", "snippets": deep}, {"id": "q2", "documents": deep}]})
    assert [(e.path, e.keyword) for e in errors] == [(("questions", 0, "snippets", 0), "type"),
                                                      (("questions", 1, "documents", 0), "type")]


def test_errors_far_into_a_file_are_listed_from_a_bounded_part(monkeypatch):
    """Past ERROR_SEARCH_ITEMS good questions come 100,000 bad ones: the compiled check,
    which lists every error of what it is given, is given a part ending within about
    ERROR_SEARCH_ITEMS items of a part without error, not the whole file (100,000 errors,
    1.1 s and 240 MB; a 20 MB run holds two million)."""
    from scorer import schemas
    name = "taskb-phaseA-run.schema.json"
    compiled = schemas._compiled(name)
    listed: list[int] = []

    class Counting:
        def is_valid(self, value):
            return compiled.is_valid(value)

        def iter_errors(self, value):
            errors = list(compiled.iter_errors(value))
            listed.append(len(errors))
            return iter(errors)

    monkeypatch.setattr(schemas, "_compiled", lambda _: Counting())
    good = schemas.ERROR_SEARCH_ITEMS + 1_000
    questions = [{"id": f"q{i}"} for i in range(good)] + [{"id": 5}] * 100_000
    errors = schemas.schema_errors(name, {"questions": questions})
    assert len(errors) == schemas.MAX_SCHEMA_ERRORS + 1
    assert errors[0].path == ("questions", good, "id") and errors[0].keyword == "type"
    assert len(listed) == 1 and 0 < listed[0] <= 2 * schemas.ERROR_SEARCH_ITEMS
