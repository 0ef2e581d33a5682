"""One verdict everywhere: ``validate``, ``score --strict``, ``seal`` and ``ci check`` say
what the pull-request check says about a run, with the same reasons.

A corpus of runs of every task (the demo's runs, each also written in every form a
participant's tools produce: the fixable ones ``normalize`` writes the gold's way, and
errors by hand), plus BioASQ 11b's real runs with their real test sets when
``../shared/data`` is there, is put at run paths of a challenge whose windows are all
open.  In the plain challenge, each run's verdict from ``validate --challenge``, ``score
--strict --challenge`` and ``ci check`` (one pull request holding them all) must be the
same: accepted, or refused for the same reason codes.  In the sealed challenge (every
task sealed), ``validate``, ``score --strict`` and ``seal`` must agree, the publisher's
check of the run once opened must refuse exactly what they refuse, and ``ci check``
accepts each file ``seal`` wrote.
"""
from __future__ import annotations

import contextlib
import copy
import io
import json
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from scorer.cli import main as cli_main
from scorer.core.challenge import Challenge
from scorer.core.paths import run_ref
from scorer.formats.challenge import load_challenge
from scorer.formats.sealed import generate_key_pair
from scorer.pr.publish import opened_problems
from tests.conftest import ROOT, SHARED
from tests.gitutil import commit, git

OPEN = "2026-03-01T12:00:00Z"
KEY = generate_key_pair()
HTTPS = "https://pubmed.ncbi.nlm.nih.gov/{}/"
PUBMED = "http://www.ncbi.nlm.nih.gov/pubmed/"
REAL = SHARED / "data" / "bioasq-real"
WINDOW = "{ opens = 2026-03-01T10:00:00Z, closes = 2026-03-02T10:00:00Z }"
CHALLENGE = f"""\
[challenge]
name = "One verdict"

[rules]
flavor = "official"
max_systems_per_team = 1000

[limits]
systems_per_team = 1000
max_run_bytes = 50000000

@SEALED@
[taskb]
[[taskb.batches]]
id = "batch1"
phaseA = {WINDOW}
phaseAplus = true
phaseB = {WINDOW}
[[taskb.batches]]
id = "real"
phaseA = {WINDOW}
phaseB = {WINDOW}

[taska]
hierarchy = "gold/mesh/hierarchy.txt"
[[taska.batches]]
id = "batch1"
testsets = [{{ id = "week1", opens = 2026-03-01T10:00:00Z, closes = 2026-03-02T10:00:00Z }}]

[mcqa]
[[mcqa.batches]]
id = "batch1"
window = {WINDOW}

[synergy]
[[synergy.rounds]]
id = "round1"
window = {WINDOW}
"""
#: The demo's files each task's runs are checked and scored against.
DEMO_FILES = ("testsets/taskb/batch1/phaseA.json", "testsets/taskb/batch1/phaseB.json",
              "gold/taskb/batch1/phaseA.json", "gold/taskb/batch1/phaseB.json",
              "testsets/taska/batch1/week1.json", "gold/taska/batch1/week1.json", "gold/mesh/hierarchy.txt",
              "testsets/mcqa/batch1/testset.json", "gold/mcqa/batch1/gold.json",
              "testsets/synergy/round1/questions.json", "gold/synergy/round1/gold.json")
#: A demo run of each task and phase (the corpus's starting points).
DEMO_RUNS = {("taskB", "batch1", "phaseA"): "submissions/taskB/batch1/phaseA/helix/helix-dense.json",
             ("taskB", "batch1", "phaseAplus"): "submissions/taskB/batch1/phaseAplus/helix/helix-dense.json",
             ("taskB", "batch1", "phaseB"): "submissions/taskB/batch1/phaseB/helix/helix-dense.json",
             ("taskA", "batch1", "week1"): "submissions/taskA/batch1/week1/northbridge/nb-flat.json",
             ("mcqa", "batch1", ""): "submissions/mcqa/batch1/helix/helix-dense.json",
             ("synergy", "round1", ""): "submissions/synergy/round1/helix/helix-dense.json"}
#: BioASQ 11b batch 1: the real test sets and golden file, and the real runs of it.
REAL_FILES = {"testsets/taskb/real/phaseA.json": "testsets/BioASQ-task11bPhaseA-testset1.json",
              "testsets/taskb/real/phaseB.json": "testsets/BioASQ-task11bPhaseB-testset1.json",
              "gold/taskb/real/phaseA.json": "golden/11B1_golden.json",
              "gold/taskb/real/phaseB.json": "golden/11B1_golden.json"}


# --- the forms -----------------------------------------------------------------------------

def _questions(run: dict) -> list[dict]:
    return run["questions"]


def _documents(run: dict, write: Callable[[str], object]) -> dict:
    for q in _questions(run):
        if q.get("documents"):
            q["documents"] = [write(d.rsplit("/", 1)[-1]) for d in q["documents"]]
        for s in q.get("snippets") or []:
            s["document"] = write(s["document"].rsplit("/", 1)[-1])
    return run


def _snippets(run: dict, change: Callable[[dict], None]) -> dict:
    for q in _questions(run):
        for s in q.get("snippets") or []:
            change(s)
    return run


def _snake(s: dict) -> None:
    for key in ("beginSection", "endSection", "offsetInBeginSection", "offsetInEndSection"):
        s[re.sub(r"([A-Z])", lambda m: "_" + m.group(1).lower(), key)] = s.pop(key)


def _first_answer(run: dict, kind: str, change: Callable[[dict], None], member: str = "exact_answer") -> dict:
    """``change`` the first question of type ``kind`` that carries ``member``."""
    for q in _questions(run):
        if q.get("type") == kind and member in q:
            change(q)
            return run
    pytest.fail(f"no {kind} answer to change")


def _flat(q: dict) -> None:
    q["exact_answer"] = [synonyms[0] for synonyms in q["exact_answer"]]


TASK_B_FORMS: dict[str, Callable[[dict], dict]] = {
    "https URLs": lambda r: _documents(r, HTTPS.format),
    "bare PMIDs": lambda r: _documents(r, str),
    "numbers as PMIDs": lambda r: _documents(r, int),
    "pmid: prefix": lambda r: _documents(r, "pmid:{}".format),
    "articles": lambda r: {"questions": [{("articles" if k == "documents" else k): v for k, v in q.items()}
                                         for q in _questions(r)]},
    "snake_case snippet keys": lambda r: _snippets(r, _snake),
    "list-valued sections": lambda r: _snippets(r, lambda s: s.update(beginSection=[s["beginSection"]])),
    "offsets as strings": lambda r: _snippets(r, lambda s: s.update(offsetInBeginSection=str(s["offsetInBeginSection"]))),
    "offsets as fractions": lambda r: _snippets(r, lambda s: s.update(offsetInEndSection=s["offsetInEndSection"] + 0.0)),
    "a snippet score": lambda r: _snippets(r, lambda s: s.update(score=0.5)),
    "an unknown question": lambda r: {"questions": [*_questions(r), {**_questions(r)[0], "id": "not-in-the-test-set"}]},
    "a repeated question": lambda r: {"questions": [*_questions(r), _questions(r)[0]]},
    "eleven documents": lambda r: {"questions": [{**q, "documents": [PUBMED + str(90000000 + i) for i in range(11)]}
                                                 if i == 0 else q for i, q in enumerate(_questions(r))]},
}
ANSWER_FORMS: dict[str, Callable[[dict], dict]] = {
    "flat factoid answers": lambda r: _first_answer(r, "factoid", _flat),
    "flat list answers": lambda r: _first_answer(r, "list", _flat),
    "a bare string factoid": lambda r: _first_answer(r, "factoid", lambda q: q.update(exact_answer="a name")),
    "a yes/no label": lambda r: _first_answer(r, "yesno", lambda q: q.update(exact_answer="Yes")),
    "a yes/no list": lambda r: _first_answer(r, "yesno", lambda q: q.update(exact_answer=["yes"])),
    "a null ideal answer": lambda r: _first_answer(r, "summary", lambda q: q.update(ideal_answer=None),
                                                      "ideal_answer"),
    "an ideal answer list": lambda r: _first_answer(
        r, "summary", lambda q: q.update(ideal_answer=[q["ideal_answer"]]), "ideal_answer"),
}
TASK_A_FORMS: dict[str, Callable[[dict], dict]] = {
    "an unknown PMID": lambda r: {**r, "documents": [*r["documents"], {**r["documents"][0], "pmid": 1}]},
    "labels as a string": lambda r: {**r, "documents": [{**d, "labels": "D1"} if i == 0 else d
                                                        for i, d in enumerate(r["documents"])]},
}
MCQA_FORMS: dict[str, Callable[[dict], dict]] = {
    "not a candidate": lambda r: {"answers": [{**a, "answer": "no-such-candidate"} if i == 0 else a
                                              for i, a in enumerate(r["answers"])]},
    "an unknown question": lambda r: {"answers": [*r["answers"], {"question": "no-such-question", "answer": None}]},
}


def _forms(task: str, phase: str) -> dict[str, Callable[[dict], dict]]:
    if task == "taskA":
        return TASK_A_FORMS
    if task == "mcqa":
        return MCQA_FORMS
    forms = dict(TASK_B_FORMS) if phase in ("phaseA", "phaseB", "") else {}
    return forms | (ANSWER_FORMS if phase in ("phaseB", "phaseAplus", "") else {})


def corpus() -> dict[tuple[str, str, str, str], bytes]:
    """(task, batch, phase, name) -> the bytes of a run: each demo run, as it is and in
    every form of its task; text that is no JSON; and the real runs of 11b batch 1 with
    their URL-form variant, when ``../shared/data`` has them."""
    out = {}
    for (task, batch, phase), path in DEMO_RUNS.items():
        run = json.loads((ROOT / path).read_text())
        out[task, batch, phase, "as it is"] = json.dumps(run, indent=1).encode()
        for name, form in _forms(task, phase).items():
            out[task, batch, phase, name] = json.dumps(form(copy.deepcopy(run)), indent=1).encode()
        out[task, batch, phase, "not JSON"] = json.dumps(run)[:-1].encode()
    if REAL.is_dir():
        for path in sorted((REAL / "runs").glob("11B1_*.json")):
            phase = "phaseA" if "phaseA" in path.name else "phaseB"
            data = path.read_bytes()
            out["taskB", "real", phase, path.stem] = data
            out["taskB", "real", phase, path.stem + " https"] = json.dumps(
                _documents(json.loads(data), HTTPS.format)).encode()
    return out


# --- the repository and the commands -----------------------------------------------------

def _path(number: int, task: str, batch: str, phase: str) -> str:
    from scorer.core.tasks import SINGLE_PHASE, TASKS
    return TASKS[task].run_path(batch, phase or SINGLE_PHASE, "alpha", f"s{number}")


def _challenge(tmp_path: Path, runs: dict, sealed: bool) -> tuple[Path, dict[str, tuple]]:
    """A repository with the challenge on ``main`` and branch ``pr`` checked out, the runs
    at their paths in its folder (not committed); their path -> corpus key."""
    repo = tmp_path / ("sealed" if sealed else "plain")
    repo.mkdir()
    git(repo, "init", "-q")
    submissions = f'[submissions]\nsealed = true\nrecipient = "{KEY.recipient}"\n' if sealed else ""
    paths, per_group = {}, Counter()
    for key in runs:  # system s<n> sends the n-th run of its task, batch and phase: as few systems as can be
        paths[_path(per_group[key[:3]], *key[:3])] = key
        per_group[key[:3]] += 1
    systems = "".join(f'[[systems]]\nid = "s{i}"\nname = "S{i}"\ndescription = "s"\n'
                      for i in range(max(per_group.values())))
    files = {"challenge.toml": CHALLENGE.replace("@SEALED@", submissions).encode(),
             "teams/alpha.toml": f'name = "Alpha"\nmembers = ["alice"]\n{systems}'.encode(),
             **{p: (ROOT / p).read_bytes() for p in DEMO_FILES}}
    if REAL.is_dir():
        files.update({p: (REAL / source).read_bytes() for p, source in REAL_FILES.items()})
    commit(repo, files, "the challenge")
    git(repo, "checkout", "-q", "-b", "pr")
    for path, key in paths.items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_bytes(runs[key])
    return repo, paths


def _cli(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = cli_main(list(argv))
    return code, out.getvalue()


VERDICT_LINE = re.compile(r"^check verdict: (\S+): (accepted|refused \(([^)]*)\))", re.MULTILINE)


def _verdict(output: str, path: str) -> str:
    """``accepted`` or ``refused (codes)``: the verdict line an output gives for ``path``."""
    found = [m.group(2) for m in VERDICT_LINE.finditer(output) if m.group(1).endswith(path)]
    assert len(found) == 1, output
    return found[0]


def _local_verdicts(repo: Path, path: str, challenge: Challenge) -> dict[str, str]:
    """The verdicts of ``validate`` and ``score --strict`` on the run at ``path``
    (``challenge``: the repository's, which names the gold)."""
    ref = run_ref(path)
    assert ref is not None
    gold = challenge.gold_paths(ref)
    options = ["--hierarchy", str(gold["hierarchy"])] if "hierarchy" in gold else []
    validate = _cli("validate", str(repo / path), "--challenge", str(repo))
    score = _cli("score", str(repo / path), "--gold", str(gold["gold"]), "--challenge", str(repo), "--strict",
                 *options)
    verdicts = {"validate": _verdict(validate[1], path), "score --strict": _verdict(score[1], path)}
    refused = verdicts["validate"] != "accepted"
    assert validate[0] == score[0] == (1 if refused else 0), (validate, score)
    return verdicts


@pytest.fixture(scope="module")
def runs() -> dict:
    return corpus()


def test_the_corpus_has_every_task_and_both_verdicts(runs):
    from scorer.core.tasks import TASKS
    assert {key[0] for key in runs} == set(TASKS)
    assert sum(key[3] == "as it is" for key in runs) == len(DEMO_RUNS)


def test_validate_score_and_the_check_give_one_verdict_on_every_run(runs, tmp_path):
    repo, paths = _challenge(tmp_path, runs, sealed=False)
    challenge = load_challenge(repo)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "the runs")
    code, output = _cli("ci", "check", "--repo", str(repo), "--base=main", "--head=HEAD", "--actor", "alice",
                        "--now", OPEN, "--report", str(tmp_path / "report.json"))
    report = {c["path"]: c for c in json.loads((tmp_path / "report.json").read_text())["changes"]}
    disagree, both = [], set()
    for path, key in paths.items():
        checked = report[path]
        expected = "accepted" if checked["accepted"] else f"refused ({', '.join(dict.fromkeys(r['code'] for r in checked['reasons']))})"
        assert _verdict(output, path) == expected
        local = _local_verdicts(repo, path, challenge)
        both.add(checked["accepted"])
        if set(local.values()) != {expected}:
            disagree.append((key, expected, local))
    assert not disagree, disagree
    assert both == {True, False} and code == 1
    # every form that would score 0 where it is scored is refused, and its fix is the normalize command
    for path, key in paths.items():
        if key[3] in ("https URLs", "bare PMIDs") and key[2] in ("phaseA", ""):
            assert not report[path]["accepted"] and "normalize" in report[path]["reasons"][0]["fix"], key


def test_validate_score_seal_and_the_opened_check_give_one_verdict_on_every_sealed_run(runs, tmp_path):
    repo, paths = _challenge(tmp_path, runs, sealed=True)
    challenge = load_challenge(repo)
    disagree, sealed = [], []
    for path, key in paths.items():
        local = _local_verdicts(repo, path, challenge)
        code, output = _cli("seal", str(repo / path), "--repo", str(repo))
        local["seal"] = _verdict(output, path)
        opened = opened_problems(repo, run_ref(path), challenge)
        if len(set(local.values())) != 1 or (local["seal"] == "accepted") != (not opened) or (code == 0) != (
                local["seal"] == "accepted"):
            disagree.append((key, local, [p.code for p in opened]))
        if code == 0:
            sealed.append(path + ".age")
        (repo / path).unlink()  # the plain run is never submitted
    assert not disagree, disagree
    assert sealed and len(sealed) < len(paths)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "the sealed runs")
    code, output = _cli("ci", "check", "--repo", str(repo), "--base=main", "--head=HEAD", "--actor", "alice",
                        "--now", OPEN)
    assert code == 0 and all(_verdict(output, path) == "accepted" for path in sealed), output


def test_the_warnings_pass_of_evaluate_gives_the_warnings_validate_gives(runs):
    """``scorer.evaluate`` returns the warnings ``validate`` gives from a pass that skips
    the questions with nothing to fix: on every run of the corpus it reads, the same ones."""
    from scorer.core.errors import ScorerError
    from scorer.core.tasks import SINGLE_PHASE, TASKS
    from scorer.formats.jsontext import load_json
    from scorer.formats.validation import run_warnings, validate_run
    compared = 0
    for (task, _, phase, name), data in runs.items():
        try:
            value, doc = load_json(data, name=name)
        except ScorerError:
            continue
        scoring = TASKS[task].scorer_task(phase or SINGLE_PHASE)
        expected = [p for p in validate_run(scoring, value, doc)[0] if p.severity == "warning"]
        assert run_warnings(scoring, value, doc) == expected, (task, phase, name)
        compared += bool(expected)
    assert compared >= 5


def test_the_dry_run_says_the_boards_sentence_for_a_zero_owed_to_a_form(tmp_path):
    """``score`` prints the sentence a board shows for a category that scores 0 only
    because of a form ``normalize`` fixes, with the command."""
    gold, run = tmp_path / "gold.json", tmp_path / "run.json"
    gold.write_text(json.dumps({"questions": [{"id": f"q{i}", "type": "yesno", "body": "?", "snippets": [],
                                               "documents": [PUBMED + str(10 + i)]} for i in range(3)]}))
    run.write_text(json.dumps({"questions": [{"id": f"q{i}", "snippets": [], "documents": [HTTPS.format(10 + i)]}
                                             for i in range(3)]}))
    code, output = _cli("score", str(run), "--gold", str(gold), "--task", "phaseA")
    assert code == 0 and "documents.map        0.000000" in output, output
    assert "documents: 0 only because the items are written in another URL form" in output
    assert f"run: python -m scorer normalize {run} {run}" in output
