"""Phase A+ (BioASQ 12 on): exact and ideal answers sent in the Phase A window, before the
gold documents and snippets are out.  Runs go to ``submissions/taskB/<batch>/phaseAplus/``,
are checked as Phase B runs against the Phase A test set, scored with the Phase B measures
against the Phase B gold, and ranked on leaderboards of their own."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import scorer
from scorer.formats.challenge import load_challenge
from scorer.formats.sealed import DEMO_KEY_FILE, read_gold
from scorer.store.pipeline import score_all
from tests.gitutil import commit, git
from tests.pr_challenge import AFTER, CHALLENGE, MAX_BYTES, OPEN, check, codes, dumps, only
from tests.test_site import DEMO, copy_demo

ROOT = Path(__file__).resolve().parent.parent
APLUS_RUN = "submissions/taskB/batch1/phaseAplus/alpha/a1.json"


def answers(*ids: str, yes: str = "yes") -> bytes:
    questions = {"q1": {"type": "yesno", "exact_answer": yes, "ideal_answer": "It is."},
                 "q2": {"type": "list", "exact_answer": [["x"]], "ideal_answer": "X."}}
    return dumps({"questions": [{"id": q, "body": "?", **questions.get(q, questions["q1"])} for q in ids]})


@pytest.fixture
def aplus_repo(repo):
    """The pull-request challenge with a Phase A+ window in batch1 (``true``: the Phase A window)."""
    git(repo, "checkout", "-q", "main")
    toml = CHALLENGE.format(rules='flavor = "official"', max_bytes=MAX_BYTES).replace(
        'id = "batch1"\n', 'id = "batch1"\nphaseAplus = true\n', 1)
    commit(repo, {"challenge.toml": toml.encode()}, "Phase A+ in batch1")
    git(repo, "checkout", "-q", "-B", "pr", "main")
    return repo


def test_the_window_written_true_is_the_phase_a_window(aplus_repo):
    batches = load_challenge(aplus_repo).batches("taskB")
    assert batches["batch1"].windows["phaseAplus"] == batches["batch1"].windows["phaseA"]
    assert "phaseAplus" not in batches["batch2"].windows


def test_a_phase_a_plus_run_is_accepted_in_the_phase_a_window_and_refused_after(aplus_repo):
    commit(aplus_repo, {APLUS_RUN: answers("q1", "q2")})
    code, body, _, out = check(aplus_repo, now=OPEN)
    assert code == 0, out
    assert only(body)["accepted"]
    code, body, _, _ = check(aplus_repo, now=AFTER)
    assert code == 1 and codes(only(body)) == ["window-closed"]


def test_a_batch_without_phase_a_plus_refuses_its_runs(aplus_repo):
    commit(aplus_repo, {"submissions/taskB/batch2/phaseAplus/alpha/a1.json": answers("q1", "q2")})
    code, body, _, _ = check(aplus_repo, now=OPEN)
    assert code == 1 and codes(only(body)) == ["unknown-batch"]


def test_a_phase_a_plus_run_is_validated_as_phase_b(aplus_repo):
    bad = json.loads(answers("q1", "q2"))
    bad["questions"][0]["exact_answer"] = 7  # not a yes/no answer
    commit(aplus_repo, {APLUS_RUN: dumps(bad)})
    code, body, _, _ = check(aplus_repo, now=OPEN)
    assert code == 1 and codes(only(body)) == ["invalid-run"]
    assert f"python -m scorer validate {APLUS_RUN} lists them" in only(body)["reasons"][0]["fix"]  # its path: Phase B
    assert any(p["pointer"] == "/questions/0/exact_answer" for p in only(body)["problems"]), only(body)["problems"]


def test_a_phase_a_plus_run_answers_the_phase_a_test_set(aplus_repo):
    commit(aplus_repo, {APLUS_RUN: answers("q1", "q9")})
    code, body, _, _ = check(aplus_repo, now=OPEN)
    assert code == 1 and codes(only(body)) == ["unknown-questions"]
    assert "q9" in only(body)["reasons"][0]["message"]
    assert "testsets/taskb/batch1/phaseA.json" in only(body)["reasons"][0]["message"]


# --- scoring and rankings on the demo ----------------------------------------------------

@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> Path:
    """A copy of the demo challenge scored with ``score_all``."""
    repo = copy_demo(tmp_path_factory.mktemp("aplus-demo") / "repo", DEMO + ("testsets",))
    assert score_all(repo).ok
    return repo


def _aplus_runs(repo: Path) -> list[Path]:
    runs = sorted((repo / "submissions/taskB").glob("*/phaseAplus/*/*.json"))
    assert len(runs) >= 6
    return runs


def test_a_phase_a_plus_run_scores_as_the_same_file_scored_as_phase_b(demo, tmp_path):
    key = (demo / DEMO_KEY_FILE).read_text(encoding="utf-8")
    for run in _aplus_runs(demo):
        batch, _, team, system = run.relative_to(demo / "submissions/taskB").with_suffix("").parts
        stored = json.loads((demo / "results/runs/taskB" / batch / "phaseAplus" / team / f"{system}.json").read_text())
        manual = demo / "gold/taskb" / batch / "manual-phaseAplus.json"
        options = {"manual": str(manual), "system": f"{team}/{system}"} if manual.exists() else {}
        gold = tmp_path / f"{batch}-phaseB.json"  # plain, or the demo's sealed gold opened with its public key
        gold.write_bytes(read_gold(demo / "gold/taskb" / batch / "phaseB.json", key))
        direct = scorer.evaluate(str(gold), str(run), task="phaseB",
                                 edition=9, flavor="official", **options)
        assert stored["measures"] == pytest.approx(direct.measures, nan_ok=True), run
        assert stored["task"] == "taskB" and stored["phase"] == "phaseAplus"
        if options:  # the Phase A+ expert scores, not Phase B's
            assert "ideal.manual.recall" in stored["measures"]


def test_phase_a_plus_and_phase_b_are_ranked_apart(demo):
    index = json.loads((demo / "results/index.json").read_text())
    for batch in ("batch1", "batch2", "batch3"):
        aplus = json.loads((demo / f"results/batches/taskB/{batch}/phaseAplus.json").read_text())
        phase_b = json.loads((demo / f"results/batches/taskB/{batch}/phaseB.json").read_text())
        assert set(aplus["rankings"]) == {"phaseAplus.exact", "phaseAplus.ideal"}
        assert set(phase_b["rankings"]) == {"phaseB.exact", "phaseB.ideal"}
        aplus_runs = {f"{e['team']}/{e['system']}" for e in index["runs"].values()
                      if e["batch"] == batch and e["phase"] == "phaseAplus"}
        assert set(aplus["systems"]) == aplus_runs
        for ranking in aplus["rankings"].values():  # ranks 1..n among the Phase A+ runs only
            ranked = [r for r in ranking["records"] if r["ranked"]]
            assert {r["system"] for r in ranked} <= aplus_runs
            assert max(r["rank"] for r in ranked) <= len(ranked)
    overview = json.loads((demo / "results/overview/taskB.json").read_text())
    assert {"phaseAplus.exact", "phaseAplus.ideal", "phaseB.exact", "phaseB.ideal"} <= set(overview["rankings"])
    aplus_avg = overview["rankings"]["phaseAplus.exact"]["systems"]
    b_avg = overview["rankings"]["phaseB.exact"]["systems"]
    assert set(aplus_avg) != set(b_avg)  # systems without Phase A+ runs are only in Phase B's
    assert overview["rankings"]["phaseAplus.exact"]["friedman"] is not None  # own Friedman test and CD


def test_the_demo_has_a_system_the_gold_evidence_does_not_help(demo):
    """The demo's story: most systems answer better with the gold evidence, one does not."""
    better = {}
    for run in _aplus_runs(demo):
        rel = run.relative_to(demo / "submissions/taskB")
        a = json.loads((demo / "results/runs/taskB" / rel).read_text())["measures"]
        b = json.loads((demo / "results/runs/taskB" / rel.parts[0] / "phaseB" / rel.parts[2] / rel.parts[3])
                       .read_text())["measures"]
        gain = b["list.f1"] + b["ideal.rougesu4.f1"] - a["list.f1"] - a["ideal.rougesu4.f1"]
        better.setdefault(f"{rel.parts[2]}/{run.stem}", []).append(gain)
    mean_gain = {key: sum(gains) / len(gains) for key, gains in better.items()}
    assert sum(gain > 0 for gain in mean_gain.values()) >= 2, mean_gain
    assert any(gain <= 0 for gain in mean_gain.values()), mean_gain
