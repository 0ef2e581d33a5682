"""``normalize`` reaches a fixed point, and never claims a fix it does not make.

For real 11b runs (``../shared/data/bioasq-real/runs``) and for mutations of them (and of a
small synthetic run, so the property runs without the shared data) applying the documented
variants, one ``normalize`` pass must give a run that

* ``normalize`` leaves unchanged (equal JSON, no fix reported),
* ``validate`` reports no problem attributed to ``normalize`` (``fixed_by``),
* the reader and the official answer reading report no problem whose advice says
  "python -m scorer normalize does it";

and every fix a pass reports changes the value at its pointer.
"""
from __future__ import annotations

import copy
import json
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scorer.cli import main
from scorer.core.errors import Problem, ScorerError
from scorer.evaluation.phase_b import official_answers
from scorer.formats.findings import Finding
from scorer.formats.jsontext import JsonText, load_json
from scorer.formats.taskb import SNIPPET_KEY_VARIANTS, read_taskb
from scorer.formats.validation import normalize_taskb, validate_taskb

from conftest import DATA

RUNS = DATA / "bioasq-real" / "runs"
REAL_RUNS = sorted(RUNS.glob("*.json")) if RUNS.is_dir() else []
NORMALIZE_CLAIM = "normalize does it"


def phase_of(path: Path) -> str:
    """``phaseA`` or ``phaseB``, from the run's file name."""
    return "phaseA" if "phaseA" in path.name else "phaseB"


def reparse(value) -> object:
    """The value as ``normalize`` writes it and the next command reads it (JsonFloat for 12.0)."""
    return load_json(json.dumps(value, ensure_ascii=True), max_bytes=None)[0]


def fixes(found) -> list[tuple[str, Finding]]:
    """The (pointer, finding) pairs of a normalize pass whose finding says it wrote a fix."""
    return [(base + f.pointer, f) for base, f in found if isinstance(f, Finding) and f.fixed]


def at(value, pointer: str):
    """The JSON text of the value at ``pointer``, or None when there is no such place."""
    for part in pointer.split("/")[1:]:
        part = part.replace("~1", "/").replace("~0", "~")
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return None
    return json.dumps(value, sort_keys=True)


def claimed_but_left(problems: list[Problem]) -> list[str]:
    """Problems of a normalized run that normalize claims to fix (it should have)."""
    return [f"{p.pointer}: {p.code}: {p.fix}" for p in problems
            if p.fixed_by == "normalize" or NORMALIZE_CLAIM in (p.fix or "")]


def reader_problems(value, phase: str) -> list[Problem]:
    """What the scoring reader (and, for Phase B, the official answer reading) reports."""
    try:
        run = read_taskb(value, name="run")
    except ScorerError as exc:
        return list(exc.problems)
    if phase != "phaseB":
        return []
    return official_answers(run, 8, gold=False)[1]


def fixed_point_failures(value, phase: str) -> list[str]:
    """Every way one normalize pass of ``value`` falls short of the fixed point."""
    fixed, found = normalize_taskb(value, phase)
    failures = [f"claimed fix {f.code} at {p} left the value unchanged"
                for p, f in fixes(found) if at(value, p) is not None and at(value, p) == at(fixed, p)]
    written = reparse(fixed)
    again, found_again = normalize_taskb(written, phase)
    failures += [f"second pass fixes {f.code} at {p}: {f.message}" for p, f in fixes(found_again)]
    if json.dumps(again, sort_keys=True) != json.dumps(written, sort_keys=True):
        failures.append("second pass changed the run")
    problems, _ = validate_taskb(written, JsonText("run", None), phase=phase)
    failures += claimed_but_left(problems)
    failures += claimed_but_left(reader_problems(written, phase))
    return failures


# --- real runs -------------------------------------------------------------------------

@pytest.mark.skipif(not REAL_RUNS, reason=f"{RUNS} is absent (the shared reference data is not checked out)")
@pytest.mark.parametrize("path", REAL_RUNS, ids=lambda p: p.name)
def test_real_run_normalized_once_is_a_fixed_point(path: Path, tmp_path: Path, capsys):
    phase = phase_of(path)
    once, twice = tmp_path / "once.json", tmp_path / "twice.json"
    main(["normalize", str(path), str(once), "--task", phase])
    main(["normalize", str(once), str(twice), "--task", phase])
    capsys.readouterr()
    assert json.loads(twice.read_text()) == json.loads(once.read_text())
    assert fixed_point_failures(load_json(str(path), max_bytes=None)[0], phase) == []
    main(["validate", str(once), "--task", phase])
    assert "run: python -m scorer normalize" not in capsys.readouterr().out


# --- mutations of real and synthetic runs ----------------------------------------------

SYNTHETIC = {"questions": [
    {"id": "q-yesno", "type": "yesno", "body": "Is it?", "exact_answer": "yes", "ideal_answer": "Yes, it is.",
     "documents": ["http://www.ncbi.nlm.nih.gov/pubmed/111"], "concepts": ["http://purl/c1"],
     "snippets": [{"document": "http://www.ncbi.nlm.nih.gov/pubmed/111", "text": "It is.",
                   "beginSection": "abstract", "endSection": "abstract",
                   "offsetInBeginSection": 0, "offsetInEndSection": 6}]},
    {"id": "q-factoid", "type": "factoid", "body": "Which gene?", "exact_answer": [["BRCA1"], ["BRCA2"]],
     "ideal_answer": "BRCA1.", "documents": ["http://www.ncbi.nlm.nih.gov/pubmed/222"],
     "snippets": [{"document": "http://www.ncbi.nlm.nih.gov/pubmed/222", "text": "BRCA1",
                   "beginSection": "title", "endSection": "title",
                   "offsetInBeginSection": 3, "offsetInEndSection": 8}]},
    {"id": "q-list", "type": "list", "body": "Which genes?", "exact_answer": [["TP53", "p53"], ["MDM2"]],
     "ideal_answer": "TP53 and MDM2.", "documents": [], "snippets": []},
    {"id": "q-summary", "type": "summary", "body": "Describe.", "ideal_answer": "A summary.",
     "documents": ["http://www.ncbi.nlm.nih.gov/pubmed/333"]},
]}

PMID_FORMS = ("{}", " {} ", "pmid:{}", "PMID: {}", "https://pubmed.ncbi.nlm.nih.gov/{}/",
              "www.ncbi.nlm.nih.gov/pubmed/{}", "https://www.ncbi.nlm.nih.gov/pubmed/{}")
VARIANTS_OF = {official: [v for v, o in SNIPPET_KEY_VARIANTS.items() if o == official]
               for official in set(SNIPPET_KEY_VARIANTS.values())}


def _pmid(document) -> str:
    digits = "".join(c for c in str(document).rsplit("/", 1)[-1] if c.isdigit())
    return digits or "12345"


def _snippet(q: dict, rnd: random.Random) -> dict | None:
    snippets = [s for s in q.get("snippets", []) if isinstance(s, dict)] if isinstance(q.get("snippets"), list) else []
    return rnd.choice(snippets) if snippets else None


def _list_item(q: dict, key: str, rnd: random.Random) -> int | None:
    values = q.get(key)
    return rnd.randrange(len(values)) if isinstance(values, list) and values else None


def snake_case_key(q, rnd):
    s = _snippet(q, rnd)
    keys = [k for k in s if k in VARIANTS_OF] if s else []
    if keys:
        key = rnd.choice(keys)
        s[rnd.choice(VARIANTS_OF[key])] = s.pop(key)


def variant_beside_official_key(q, rnd):
    """A variant key next to its official key: normalize removes it (nothing to rename)."""
    s = _snippet(q, rnd)
    keys = [k for k in s if k in VARIANTS_OF] if s else []
    if keys:
        key = rnd.choice(keys)
        s[rnd.choice(VARIANTS_OF[key])] = s[key]


def two_variants_of_one_key(q, rnd):
    """Two spellings of one key and no official one: normalize renames one, removes the other."""
    s = _snippet(q, rnd)
    keys = [k for k in s if len(VARIANTS_OF.get(k, ())) > 1] if s else []
    if keys:
        key = rnd.choice(keys)
        first, second = rnd.sample(VARIANTS_OF[key], 2)
        s[first] = s.pop(key)
        s[second] = s[first] if rnd.random() < 0.5 else "other"


def list_valued_text(q, rnd):
    """A string member other than a section given as a one-string list (normalize leaves it)."""
    s = _snippet(q, rnd)
    if s and rnd.random() < 0.5:
        key = rnd.choice(("text", "document"))
        if isinstance(s.get(key), str):
            s[key] = [s[key]]
    elif isinstance(q.get("body"), str):
        q["body"] = [q["body"]]


def list_valued_section(q, rnd):
    s = _snippet(q, rnd)
    key = rnd.choice(("beginSection", "endSection"))
    if s and isinstance(s.get(key), str):
        s[key] = [s[key]]


def offset_variant(q, rnd):
    s = _snippet(q, rnd)
    key = rnd.choice(("offsetInBeginSection", "offsetInEndSection"))
    if s and type(s.get(key)) is int:
        s[key] = rnd.choice((str(s[key]), float(s[key]), f" {s[key]}", f"{s[key]}.0"))


def number_id(q, rnd):
    q["id"] = rnd.choice((rnd.randrange(10**9), float(rnd.randrange(1000))))


def document_form(q, rnd):
    form = rnd.choice(PMID_FORMS + ("number",))
    if rnd.random() < 0.5 and (s := _snippet(q, rnd)) and "document" in s:
        s["document"] = int(_pmid(s["document"])) if form == "number" else form.format(_pmid(s["document"]))
    elif (i := _list_item(q, "documents", rnd)) is not None:
        doc = q["documents"][i]
        q["documents"][i] = int(_pmid(doc)) if form == "number" else form.format(_pmid(doc))


def number_concept(q, rnd):
    values = q.setdefault("concepts", []) if isinstance(q.get("concepts", []), list) else None
    if values is not None:
        values.insert(rnd.randrange(len(values) + 1), rnd.choice((rnd.randrange(10**6), 2.5, 7.0)))


def articles_for_documents(q, rnd):
    if "documents" in q and "articles" not in q:
        q["articles"] = q.pop("documents")


def string_for_list(q, rnd):
    key = rnd.choice(("documents", "concepts"))
    values = q.get(key)
    if isinstance(values, list):
        q[key] = next((v for v in values if isinstance(v, str)), "http://www.ncbi.nlm.nih.gov/pubmed/9")


def _answer_strings(answer) -> list:
    if isinstance(answer, str):
        return [answer]
    out = []
    for item in answer if isinstance(answer, list) else ():
        out.extend(_answer_strings(item)[:1] if isinstance(item, list) else [item])
    return out


def flat_answer(q, rnd):
    if q.get("type") in ("factoid", "list") and "exact_answer" in q:
        flat = _answer_strings(q["exact_answer"]) or ["x"]
        if rnd.random() < 0.3:
            flat.insert(rnd.randrange(len(flat) + 1), "")  # the real 12b runs: empty strings
        q["exact_answer"] = flat


def bare_string_answer(q, rnd):
    if q.get("type") in ("factoid", "list"):
        q["exact_answer"] = (_answer_strings(q.get("exact_answer")) or ["x"])[0]


def yesno_list(q, rnd):
    if q.get("type") == "yesno" and isinstance(q.get("exact_answer"), str):
        q["exact_answer"] = [q["exact_answer"]]


def null_exact(q, rnd):
    q["exact_answer"] = None


def null_ideal(q, rnd):
    q["ideal_answer"] = None


def ideal_list(q, rnd):
    if isinstance(q.get("ideal_answer"), str):
        q["ideal_answer"] = [q["ideal_answer"]] + ["More."] * rnd.randrange(3)


def number_answer(q, rnd):
    answer = q.get("exact_answer")
    number = rnd.choice((rnd.randrange(100), 1.5, 3.0))
    if isinstance(answer, list) and answer:
        i = rnd.randrange(len(answer))
        if isinstance(answer[i], list) and answer[i]:
            answer[i][rnd.randrange(len(answer[i]))] = number
        elif not isinstance(answer[i], list):
            answer[i] = number
    elif q.get("type") == "yesno":
        q["exact_answer"] = [number] if rnd.random() < 0.5 else number


PHASE_A_MUTATIONS = (snake_case_key, variant_beside_official_key, two_variants_of_one_key, list_valued_text, list_valued_section, offset_variant, number_id, document_form,
                     number_concept, articles_for_documents, string_for_list)
PHASE_B_MUTATIONS = PHASE_A_MUTATIONS + (flat_answer, bare_string_answer, yesno_list, null_exact, null_ideal,
                                         ideal_list, number_answer)


def _bases() -> list[tuple[str, list]]:
    """(phase, questions) of every real run, and the synthetic run in both phases."""
    bases = [("phaseA", SYNTHETIC["questions"]), ("phaseB", SYNTHETIC["questions"])]
    for path in REAL_RUNS:
        bases.append((phase_of(path), json.loads(path.read_text(encoding="utf-8"))["questions"]))
    return bases


BASES = _bases()


@st.composite
def mutated_runs(draw):
    """(phase, run): a few questions of a real or synthetic run, with documented variants applied."""
    phase, questions = draw(st.sampled_from(BASES))
    picked = draw(st.lists(st.integers(0, len(questions) - 1), min_size=1, max_size=4, unique=True))
    run = {"questions": [copy.deepcopy(questions[i]) for i in picked]}
    rnd = draw(st.randoms(use_true_random=False))
    mutations = PHASE_B_MUTATIONS if phase == "phaseB" else PHASE_A_MUTATIONS
    for mutation, target in draw(st.lists(st.tuples(st.sampled_from(mutations), st.sampled_from(picked)),
                                          min_size=1, max_size=8)):
        mutation(run["questions"][picked.index(target)], rnd)
    return phase, reparse(run)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_runs())
def test_mutated_run_normalized_once_is_a_fixed_point(case):
    phase, run = case
    failures = fixed_point_failures(run, phase)
    assert not failures, "\n".join(failures)


def test_the_mutations_produce_what_normalize_fixes():
    """The property above is not vacuous: each mutation alone gives a fix on the synthetic run."""
    for phase, mutations in (("phaseA", PHASE_A_MUTATIONS), ("phaseB", PHASE_B_MUTATIONS)):
        for mutation in (m for m in mutations if m is not list_valued_text):
            fixed_somewhere = False
            for seed in range(20):
                run = copy.deepcopy(SYNTHETIC)
                for q in run["questions"]:
                    mutation(q, random.Random(seed))
                fixed_somewhere |= bool(fixes(normalize_taskb(reparse(run), phase)[1]))
            assert fixed_somewhere, f"{mutation.__name__} never produces a variant normalize fixes ({phase})"


def test_a_second_spelling_of_one_snippet_key_is_removed_not_renamed_over_the_first():
    run = {"questions": [{"id": "q", "snippets": [{"begin_section": "abstract", "beginsection": "title"}]}]}
    fixed, found = normalize_taskb(run, "phaseA")
    assert fixed["questions"][0]["snippets"][0] == {"beginSection": "abstract"}
    assert [(p + f.pointer, f.code) for p, f in found] == [
        ("/questions/0/snippets/0/begin_section", "snippet-key-variant"),
        ("/questions/0/snippets/0/beginsection", "unknown-snippet-key")]
