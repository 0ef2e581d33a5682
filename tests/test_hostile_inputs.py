"""Hostile inputs (issue 11): every JSON value of every type at every position of every
format gives located problems with fixes, never an internal error; ``scorer.evaluate``
raises only ``ScorerError``; bounded work whatever the file holds.

The fuzz corpus is generated here: each format's minimal valid document is walked, and
the value at each position (the whole document, every member, every list item) is
replaced by each of :data:`HOSTILE` (written as raw JSON text, so huge integers, ``1e400``
and lone surrogate escapes reach the loader as a participant would send them).
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import scorer
from scorer.cli import build_parser, main
from scorer.core.errors import ScorerError
from tests.conftest import DATA, ROOT

PUBMED = "http://www.ncbi.nlm.nih.gov/pubmed/"
SNIPPET = {"document": PUBMED + "1", "text": "t", "offsetInBeginSection": 0, "offsetInEndSection": 1,
           "beginSection": "abstract", "endSection": "abstract"}
PHASE_A_RUN = {"questions": [{"id": "q1", "documents": [PUBMED + "1"], "snippets": [SNIPPET],
                              "concepts": ["c1"], "triples": [{"s": "a", "p": "b", "o": "c"}]}]}
PHASE_B_RUN = {"questions": [
    {"id": "q1", "type": "factoid", "exact_answer": [["a"]], "ideal_answer": "An answer."},
    {"id": "q2", "type": "yesno", "exact_answer": "yes", "ideal_answer": "Yes."},
    {"id": "q3", "type": "list", "exact_answer": [["a"], ["b"]], "ideal_answer": "A and b."},
    {"id": "q4", "type": "summary", "ideal_answer": "A summary."}]}
TASKB_GOLD = {"questions": [
    {"id": "q1", "type": "factoid", "body": "Which?", "documents": [PUBMED + "1"], "snippets": [SNIPPET],
     "concepts": ["c1"], "triples": [{"s": "a", "p": "b", "o": "c"}], "exact_answer": [["a", "A"]],
     "ideal_answer": ["An answer."]},
    {"id": "q2", "type": "yesno", "body": "Is it?", "documents": [], "snippets": [], "exact_answer": "yes",
     "ideal_answer": ["Yes."]},
    {"id": "q3", "type": "list", "body": "Which ones?", "documents": [], "snippets": [],
     "exact_answer": [["a"], ["b"]], "ideal_answer": ["A and b."]},
    {"id": "q4", "type": "summary", "body": "What?", "documents": [], "snippets": [],
     "ideal_answer": ["A summary."]}]}
TASKA_RUN = {"documents": [{"pmid": 1, "labels": ["D000001", "D000002"]}, {"pmid": "2", "labels": ["D000003"]}]}
MCQA_RUN = {"answers": [{"question": "q1", "answer": "1"}, {"question": "q2", "answer": None, "candidate": "2"}]}
MCQA_GOLD = {"topics": [{"id": "t", "name": "Topic", "reading_tests": [{"id": "rt", "document": "A text.",
                                                                       "questions": [
    {"id": q, "question": "Which?", "candidates": [{"id": "1", "text": "one"}, {"id": "2", "text": "two"}],
     "correct": "1"} for q in ("q1", "q2")]}]}]}
MANUAL = {"systems": {"team/sys": {"q4": {"recall": 4, "precision": 5, "repetition": 4.5, "readability": 5}}}}

#: The raw JSON text of every kind of value put at every position.
HOSTILE = {
    "null": "null", "true": "true", "int": "7", "huge int": "1" * 5000, "negative": "-3", "float": "1.5",
    "huge float": "1e400", "string": '"s"', "long string": '"' + "a" * 100_000 + '"', "empty list": "[]",
    "list": '[1, "x", null]', "empty object": "{}", "object": '{"k": 1.5}', "lone surrogate": '"\\ud800"',
}

HIERARCHY_TEXT = "MeSH A\nA D000001\nA D000002\nD000001 D000003\n"


def positions(value, pointer=()):
    """The path (a tuple of keys and indexes) of every value in ``value``, the root first."""
    yield pointer
    if isinstance(value, dict):
        for key, item in value.items():
            yield from positions(item, pointer + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from positions(item, pointer + (index,))


_MARK = "\u0001HOSTILE\u0001"


def replaced(value, path, raw: str) -> str:
    """The JSON text of ``value`` with the value at ``path`` replaced by the raw text ``raw``."""
    if not path:
        return raw
    copy = json.loads(json.dumps(value))
    parent = copy
    for part in path[:-1]:
        parent = parent[part]
    parent[path[-1]] = _MARK
    return json.dumps(copy).replace(json.dumps(_MARK), raw)


def corpus(value):
    """``(label, text)`` for every position of ``value`` and every hostile value."""
    for path in positions(value):
        for kind, raw in HOSTILE.items():
            yield f"{'/'.join(map(str, path)) or '(root)'} = {kind}", replaced(value, path, raw)


#: (format, task, role, valid document, the other file for evaluate)
FORMATS = [
    ("phaseA run", "phaseA", "run", PHASE_A_RUN, TASKB_GOLD),
    ("phaseB run", "phaseB", "run", PHASE_B_RUN, TASKB_GOLD),
    ("taskB gold", "phaseA", "gold", TASKB_GOLD, PHASE_A_RUN),
    ("taskB gold B", "phaseB", "gold", TASKB_GOLD, PHASE_B_RUN),
    ("taskA run", "taskA", "run", TASKA_RUN, TASKA_RUN),
    ("taskA gold", "taskA", "gold", TASKA_RUN, TASKA_RUN),
    ("mcqa run", "mcqa", "run", MCQA_RUN, MCQA_GOLD),
    ("mcqa gold", "mcqa", "gold", MCQA_GOLD, MCQA_RUN),
]


def run_cli(argv: list[str]) -> tuple[int, str]:
    """``python -m scorer ARGV`` in this process: (exit code, stdout + stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue() + err.getvalue()


class Validator:
    """``python -m scorer validate PATH --task T --role R --format json`` run many times in
    this process, on text written to one scratch file (in memory where /dev/shm exists):
    the command's handler is called with the parsed arguments, as ``main`` calls it
    (without parsing the same arguments a thousand times)."""

    def __init__(self, task: str, role: str):
        folder = "/dev/shm" if os.path.isdir("/dev/shm") else None
        handle, self.path = tempfile.mkstemp(suffix=".json", dir=folder)
        os.close(handle)
        self.args = build_parser().parse_args(["validate", self.path, "--task", task, "--role", role,
                                               "--format", "json"])

    def __call__(self, text: str) -> tuple[int, dict]:
        with open(self.path, "wb") as fh:
            fh.write(text.encode("utf-8"))
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = self.args.handler(self.args)
            except Exception as exc:  # what main() would print as an internal error
                raise AssertionError(f"internal error: {type(exc).__name__}: {exc}") from exc
        assert not err.getvalue(), err.getvalue()
        return code, json.loads(out.getvalue())

    def close(self) -> None:
        os.unlink(self.path)


def assert_located(problems: list[dict], label: str) -> None:
    """Every error is placed (file and a line or pointer), has a fix, and encodes as UTF-8."""
    for p in problems:
        json.dumps(p, ensure_ascii=False).encode("utf-8")
        if p.get("severity", "error") == "error":
            assert p.get("file") and ("line" in p or "pointer" in p), (label, p)
            assert p.get("fix"), (label, p)
            assert p["code"] != "internal-error", (label, p)
            assert len(p["message"]) < 1000, (label, p["message"][:200])


def check_evaluate(gold, run, label: str, **options) -> None:
    """``scorer.evaluate`` returns or raises a located ScorerError, never anything else."""
    try:
        scorer.evaluate(gold, run, **options)
    except ScorerError as exc:
        assert exc.problems, label
        assert_located([p.located(file=p.file or "x").to_dict() for p in exc.problems], label)


@pytest.fixture(scope="module")
def hierarchy(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("mesh") / "hierarchy.txt"
    path.write_text(HIERARCHY_TEXT)
    return str(path)


@pytest.mark.parametrize("name,task,role,valid,other", FORMATS, ids=[f[0] for f in FORMATS])
def test_every_value_at_every_position(hierarchy, name, task, role, valid, other):
    options = {"hierarchy": hierarchy} if task == "taskA" else {}
    validate = Validator(task, role)
    code, report = validate(json.dumps(valid))
    assert code == 0, report  # the minimal document is valid: each change below is the only cause
    other_text = json.dumps(other).encode()
    cases = 0
    for label, text in corpus(valid):
        code, report = validate(text)
        assert code in (0, 1) and report["valid"] == (code == 0), label
        assert_located(report["problems"], label)
        gold, run = (other_text, text.encode()) if role == "run" else (text.encode(), other_text)
        check_evaluate(gold, run, label, task=task, **options)
        cases += 1
    validate.close()
    assert cases == len(list(positions(valid))) * len(HOSTILE)


def test_every_value_in_manual_scores():
    gold, run = json.dumps(TASKB_GOLD).encode(), json.dumps(PHASE_B_RUN).encode()
    for label, text in corpus(MANUAL):
        check_evaluate(gold, run, label, task="phaseB", manual=text.encode(), system="team/sys")


def test_hostile_values_are_refused_at_load_with_line_and_column(tmp_path):
    """The values no format accepts anywhere are refused by the loader itself, located."""
    path = tmp_path / "run.json"
    for kind, code in (("huge int", "number-too-long"), ("huge float", "number-overflow"),
                       ("lone surrogate", "lone-surrogate")):
        path.write_text(replaced(PHASE_A_RUN, ("questions", 0, "snippets", 0, "offsetInEndSection"), HOSTILE[kind]))
        status, output = run_cli(["validate", str(path), "--format", "json"])
        (problem,) = json.loads(output)["problems"]
        assert status == 1 and problem["code"] == code
        assert problem["pointer"] == "/questions/0/snippets/0/offsetInEndSection"
        column = path.read_text().index(HOSTILE[kind][:5]) + 1
        assert (problem["line"], problem["column"]) == (1, column)


def test_paired_surrogates_and_big_numbers_in_strings_are_fine(tmp_path):
    run = json.loads(json.dumps(PHASE_A_RUN))
    run["questions"][0]["concepts"] = ["\U0001F600", "1" * 50]
    path = tmp_path / "run.json"
    path.write_text(json.dumps(run))  # ensure_ascii: the emoji is written as a surrogate pair escape
    assert "\\ud83d\\ude00" in path.read_text()
    assert run_cli(["validate", str(path)])[0] == 0


def test_a_fifo_is_refused_without_reading(tmp_path):
    """Runs, gold, hierarchy and challenge files: reading a FIFO would block forever."""
    from scorer.formats.challenge import load_challenge
    from scorer.formats.hierarchy import load_hierarchy
    fifo = tmp_path / "run.json"
    os.mkfifo(fifo)
    status, output = run_cli(["validate", str(fifo)])
    assert status == 1 and "named pipe" in output
    os.mkfifo(tmp_path / "challenge.toml")
    for read in (lambda: scorer.evaluate(fifo, fifo), lambda: load_hierarchy(fifo), lambda: load_challenge(tmp_path)):
        with pytest.raises(ScorerError) as caught:
            read()
        assert caught.value.problems[0].code == "not-a-file"


# --- challenge.toml and teams/*.toml -----------------------------------------------------

CHALLENGE = """\
[challenge]
name = "Demo"
[rules]
best_k = 3
alpha = 0.05
[limits]
systems_per_team = 5
[[taskb.batches]]
id = "b1"
phaseA = { opens = 2026-03-01T10:00:00Z, closes = 2026-03-02T10:00:00Z }
phaseB = { opens = 2026-03-03T10:00:00Z, closes = 2026-03-04T10:00:00Z }
"""
TEAM = """\
name = "Alpha"
members = ["alice"]
url = "https://example.org"
[[systems]]
id = "a1"
name = "A1"
description = "first"
"""
#: TOML has no null and no lone surrogates (its parser refuses the escape); dates and
#: times are its own types.
TOML_VALUES = ["true", "7", "1" * 5000, "0x" + "f" * 4000, "-3", "1.5", "1e400", "inf", '"s"',
               '"' + "a" * 100_000 + '"', "[]", '[1, "x"]', "{}", "{ k = 1 }", "1979-05-27", "07:32:00",
               "1979-05-27T07:32:00", '"\\ud800"']


def toml_corpus(text: str):
    """``(label, text)`` with the value of each ``key = value`` line (and each inline
    table member) replaced by each of :data:`TOML_VALUES`."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if " = " not in line:
            continue
        key = line.split(" = ", 1)[0]
        for value in TOML_VALUES:
            yield f"line {i + 1} {key} = {value[:20]}", "\n".join(lines[:i] + [f"{key} = {value}"] + lines[i + 1:])
            if "{ opens" in line:  # a member inside the inline table
                inner = line.replace("opens = 2026-03-01T10:00:00Z", f"opens = {value}", 1)
                yield f"line {i + 1} opens = {value[:20]}", "\n".join(lines[:i] + [inner] + lines[i + 1:])


def test_every_value_in_challenge_and_team_files(tmp_path):
    from scorer.formats.challenge import load_challenge
    (tmp_path / "teams").mkdir()
    team = tmp_path / "teams" / "alpha.toml"
    for target, valid in ((tmp_path / "challenge.toml", CHALLENGE), (team, TEAM)):
        (tmp_path / "challenge.toml").write_text(CHALLENGE)
        team.write_text(TEAM)
        assert load_challenge(tmp_path).teams["alpha"]
        for label, text in toml_corpus(valid):
            target.write_text(text)
            try:
                load_challenge(tmp_path)
            except ScorerError as exc:
                assert_located([p.to_dict() for p in exc.problems], label)


# --- bounded work ------------------------------------------------------------------------

MILLION_ERRORS = '{"questions":[' + ",".join(["1"] * 1_000_000) + "]}"


def test_a_million_errors_validate_in_bounded_time_and_memory(tmp_path):
    """2 MB of {"questions": [1, 1, ...]}: under 5 s of CPU time and 300 MB in a fresh
    process (CPU time, not wall time, so a busy machine does not fail the test; the
    address space is capped at 1.5 GB so a regression fails instead of swapping).
    Before bounded validation it took 60 s and 3.7 GB."""
    path = tmp_path / "million.json"
    path.write_text(MILLION_ERRORS)
    probe = ("import resource, sys; from scorer.cli import main;"
             "resource.setrlimit(resource.RLIMIT_AS, (1_500_000_000, 1_500_000_000));"
             f"code = main(['validate', {str(path)!r}, '--format', 'json']);"
             "usage = resource.getrusage(resource.RUSAGE_SELF);"
             # VmHWM is this program's peak: ru_maxrss would keep the forking pytest's size across exec
             "peak = next((int(line.split()[1]) for line in open('/proc/self/status') if line.startswith('VmHWM')),"
             " usage.ru_maxrss);"
             "print(usage.ru_utime + usage.ru_stime, peak, code, file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    seconds, max_rss_kb, code = done.stderr.split()[-3:]
    report = json.loads(done.stdout)
    assert code == "1" and not report["valid"]
    cpu_budget = 5 * (3 if "coverage" in sys.modules else 1)  # line tracing (coverage run) is slower
    assert float(seconds) < cpu_budget and int(max_rss_kb) < 300_000, (seconds, max_rss_kb)
    assert len(report["problems"]) <= 210
    summaries = [p for p in report["problems"] if "count" in p or p["code"] == "more-problems"]
    assert {p["code"] for p in summaries} == {"wrong-type", "more-problems"}  # listed last
    assert report["problems"][-len(summaries):] == summaries
    assert len(done.stdout) < 200_000


def test_no_message_quotes_a_whole_value(tmp_path):
    path = tmp_path / "list.json"
    path.write_text(json.dumps([{"id": str(i), "body": "x" * 100} for i in range(2000)]))
    status, output = run_cli(["validate", str(path), "--format", "json"])
    (problem,) = json.loads(output)["problems"]
    assert status == 1 and problem["code"] == "wrong-type" and "2,000 items" in problem["message"]
    assert len(problem["message"]) < 300


def test_excerpt_is_short_and_encodable():
    from scorer.core.errors import excerpt
    for value in ([1] * 10**6, "x" * 10**6, {str(i): i for i in range(10**4)}, 10**5000, "\ud800", [[[["deep"]]]]):
        text = excerpt(value)
        assert len(text) < 200 and text.encode("utf-8")
    assert excerpt("abc") == '"abc"' and excerpt(None) == "null" and excerpt([1, "a"]) == '[1, "a"]'


def test_problems_are_bounded_per_code_and_in_all():
    from scorer.core.errors import PROBLEMS_PER_CODE, PROBLEMS_PER_FILE, Problem, bounded
    many = [Problem(code=f"c{i % 3}", message="m") for i in range(1000)]
    kept = bounded(many)
    listed = [p for p in kept if not p.is_summary]
    assert len(listed) == min(3 * PROBLEMS_PER_CODE, PROBLEMS_PER_FILE)
    assert all(sum(1 for p in listed if p.code == c) <= PROBLEMS_PER_CODE for c in ("c0", "c1", "c2"))
    summaries = [p for p in kept if p.is_summary]
    assert sum(p.count for p in summaries) == len(many) - len(listed)
    assert all(f"{p.count:,} more {p.code}" in p.message and p.fix for p in summaries)
    assert bounded(many[:5]) == many[:5]


# --- properties --------------------------------------------------------------------------

@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=200), st.sampled_from(["phaseA", "phaseB", "taskA", "mcqa"]))
def test_random_bytes(hierarchy, data, task):
    gold = TASKB_GOLD if task.startswith("phase") else MCQA_GOLD if task == "mcqa" else TASKA_RUN
    check_evaluate(json.dumps(gold).encode(), data or b" ", "bytes", task=task,
                   **({"hierarchy": hierarchy} if task == "taskA" else {}))


def _real_pairs():
    """(gold, run, task) of a few real BioASQ runs, cut to their first questions."""
    runs = sorted((DATA / "bioasq-real" / "runs").glob("*.json")) if DATA.exists() else []
    pairs = []
    for path in runs[:: max(1, len(runs) // 4)][:4]:
        batch, task = path.name.split("_")[0], path.stem.rsplit("_", 1)[-1]
        gold_path = DATA / "bioasq-real" / "golden" / f"{batch}_golden.json"
        if gold_path.exists() and task in ("phaseA", "phaseB"):
            run = json.loads(path.read_text(encoding="utf-8"))
            run["questions"] = run["questions"][:3]
            pairs.append((gold_path.read_bytes(), run, task))
    return pairs


REAL = _real_pairs()


@pytest.mark.skipif(not REAL, reason="../shared/data/bioasq-real is absent")
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_mutations_of_real_runs(data):
    gold, run, task = data.draw(st.sampled_from(REAL))
    places = list(positions(run))
    path = data.draw(st.sampled_from(places))
    raw = data.draw(st.sampled_from(list(HOSTILE.values())))
    text = replaced(run, path, raw)
    check_evaluate(gold, text.encode(), f"{path} = {raw[:20]}", task=task)
    assert_located(_validate_text(text, task)["problems"], str(path))


_VALIDATORS: dict[str, Validator] = {}


def _validate_text(text: str, task: str) -> dict:
    validate = _VALIDATORS.setdefault(task, Validator(task, "run"))
    code, report = validate(text)
    assert code in (0, 1)
    return report


def test_evaluate_turns_a_bug_into_a_scorer_error(monkeypatch):
    """The last safety net of the contract; the fuzz tests above assert it is never needed."""
    import scorer.evaluation.phase_a as phase_a

    def broken(*args, **kwargs):
        raise KeyError("boom")
    monkeypatch.setattr(phase_a, "evaluate_phase_a", broken)
    with pytest.raises(ScorerError) as caught:
        scorer.evaluate(TASKB_GOLD, PHASE_A_RUN)
    (problem,) = caught.value.problems
    assert problem.code == "internal-error" and "KeyError" in problem.message and problem.fix


def test_a_subprocess_never_shows_a_traceback(tmp_path):
    """The installed entry point, as a participant runs it, on a few of the worst inputs."""
    for i, raw in enumerate([HOSTILE["huge int"], HOSTILE["lone surrogate"], '{"questions": [1.5]}',
                             '{"questions": [{"id": "q", "snippets": 7}]}']):
        path = tmp_path / f"{i}.json"
        path.write_text(raw)
        done = subprocess.run([sys.executable, "-m", "scorer", "validate", str(path)], capture_output=True,
                              text=True, timeout=60, env={**os.environ, "PYTHONPATH": str(ROOT)})
        assert done.returncode == 1 and "Traceback" not in done.stderr and "internal error" not in done.stderr
        assert "fix:" in done.stdout + done.stderr

