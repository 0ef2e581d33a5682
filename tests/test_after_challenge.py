"""Runs after the challenge (``submissions/after/...``): accepted once their window closed,
at most one per team, batch and phase within ``[rules] after_run_hours`` (by the ledger's
arrival times), scored by the publish job and shown apart, never ranked (issue 34)."""
from __future__ import annotations

import csv
import json
import shutil
from datetime import timedelta
from pathlib import Path

import pytest

from scorer.cli import main
from scorer.core.utc import parse_utc, utc_text
from scorer.store import score_all
from tests.gitutil import commit, git
from tests.pr_challenge import AFTER, BASE_FILES, GOLD_RUN, OPEN, check, codes, dumps, only, phase_a_run
from tests.test_sealed_gold import (  # noqa: F401 - demo is a fixture
    KEY,
    SEALED_BATCH,
    _seal_folder,
    _with_key,
    demo,
    gold_only_strings,
    leaks,
)
from tests.test_site import Page, copy_taskb_demo

LATER_RUN = "submissions/after/taskB/batch1/phaseA/alpha/a1.json"  # batch1 Phase A closed at AFTER
OTHER_SYSTEM = "submissions/after/taskB/batch1/phaseA/alpha/a2.json"
HOURS = 24  # the default of [rules] after_run_hours


def _shifted(moment: str, hours: float) -> str:
    return utc_text(parse_utc(moment) + timedelta(hours=hours))


def _ledger_on_main(repo, entries: dict[str, str]) -> None:
    """Record arrivals on the base branch's ledger (as the publish job does), then go back to the pull request."""
    git(repo, "checkout", "-q", "main")
    ledger = {**json.loads(BASE_FILES["submissions/received.json"]), **entries}
    commit(repo, {"submissions/received.json": dumps(ledger)}, "publish")
    git(repo, "checkout", "-q", "-B", "pr2", "main")


def test_a_run_after_the_challenge_is_accepted_not_late_and_says_when_the_next_may_come(repo):
    commit(repo, {LATER_RUN: phase_a_run("q1", "q2")})
    code, body, markdown, out = check(repo, now=AFTER)
    change = only(body)
    assert code == 0, out
    assert change["accepted"] and change["after"] and not change["late"]
    assert change["next_after_run"] == _shifted(AFTER, HOURS)
    assert "accepted after the challenge" in markdown and _shifted(AFTER, HOURS) in markdown
    assert "After the challenge" in markdown


def test_a_run_after_the_challenge_while_its_window_is_open_goes_to_the_challenge_path(repo):
    commit(repo, {LATER_RUN: phase_a_run("q1", "q2")})
    code, body, _, _ = check(repo, now=OPEN)
    assert code == 1 and codes(only(body)) == ["window-open"]
    assert GOLD_RUN in only(body)["reasons"][0]["fix"]


def test_a_second_run_within_the_limit_is_refused_with_the_time_of_the_next(repo):
    sent = AFTER
    _ledger_on_main(repo, {LATER_RUN: sent})
    commit(repo, {OTHER_SYSTEM: phase_a_run("q1", "q2")})  # another system: the limit is the team's
    code, body, markdown, _ = check(repo, now=_shifted(sent, 1))
    change = only(body)
    assert code == 1 and codes(change) == ["after-run-limit"]
    allowed = _shifted(sent, HOURS)
    assert allowed in change["reasons"][0]["message"] and allowed in change["reasons"][0]["fix"]
    assert change["next_after_run"] == allowed and allowed in markdown
    assert check(repo, now=allowed)[0] == 0  # from then on it may come


def test_two_runs_after_the_challenge_in_one_pull_request_count_together(repo):
    commit(repo, {LATER_RUN: phase_a_run("q1", "q2"), OTHER_SYSTEM: phase_a_run("q1")})
    code, body, _, _ = check(repo, now=AFTER)
    assert code == 1
    assert [codes(c) for c in body["changes"]] == [[], ["after-run-limit"]]


def test_the_limit_is_per_batch_and_phase_and_per_team(repo):
    _ledger_on_main(repo, {"submissions/after/taskB/batch2/phaseA/alpha/a1.json": AFTER,
                           "submissions/after/taskB/batch1/phaseA/beta/b1.json": AFTER})
    commit(repo, {LATER_RUN: phase_a_run("q1", "q2")})
    assert check(repo, now=_shifted(AFTER, 1))[0] == 0


def test_the_limit_is_a_setting(repo):
    git(repo, "checkout", "-q", "main")
    challenge = BASE_FILES["challenge.toml"].decode().replace('flavor = "official"',
                                                              'flavor = "official"\nafter_run_hours = 2')
    ledger = {**json.loads(BASE_FILES["submissions/received.json"]), LATER_RUN: AFTER}
    commit(repo, {"challenge.toml": challenge.encode(), "submissions/received.json": dumps(ledger)}, "rules")
    git(repo, "checkout", "-q", "-B", "pr2", "main")
    commit(repo, {OTHER_SYSTEM: phase_a_run("q1")})
    code, body, _, _ = check(repo, now=_shifted(AFTER, 1))
    assert code == 1 and only(body)["next_after_run"] == _shifted(AFTER, 2)
    assert check(repo, now=_shifted(AFTER, 2))[0] == 0


# --- scored and shown apart --------------------------------------------------------------

CHALLENGE_RUN = "submissions/taskB/batch1/phaseA/helix/helix-hybrid.json"  # the demo's
AFTER_RUN = "submissions/after/taskB/batch1/phaseA/helix/helix-dense.json"  # helix-dense has a challenge run too
ARRIVED = "2026-06-01T09:00:00Z"  # long after the demo's batch1 Phase A closed
FAILED_RUN = "submissions/after/taskB/batch1/phaseA/quokka/quokka-1.json"  # not JSON: it fails scoring
FAILED_ARRIVED = "2026-06-02T09:00:00Z"


@pytest.fixture(scope="module")
def after_repo(tmp_path_factory) -> Path:
    """The demo with Task B alone and one run after the challenge (helix-hybrid's answers sent
    again as helix-dense, long after the window) and one that fails scoring (quokka's, cut),
    built once; the results before them added."""
    repo = copy_taskb_demo(tmp_path_factory.mktemp("after") / "repo")
    assert main(["score-all", "--repo", str(repo), "--jobs", "1"]) == 0
    assert main(["build", "--repo", str(repo), "--out", str(repo.parent / "site-before"), "--jobs", "1"]) == 0
    shutil.copytree(repo / "results", repo.parent / "results-before")
    (repo / AFTER_RUN).parent.mkdir(parents=True)
    shutil.copy(repo / CHALLENGE_RUN, repo / AFTER_RUN)
    (repo / FAILED_RUN).parent.mkdir(parents=True)
    (repo / FAILED_RUN).write_bytes(b'{"questions": [\n  {"id": "q1",\n')
    ledger = repo / "submissions" / "received.json"
    ledger.write_text(json.dumps({**json.loads(ledger.read_text()), AFTER_RUN: ARRIVED, FAILED_RUN: FAILED_ARRIVED}),
                      encoding="utf-8")
    assert main(["build", "--repo", str(repo), "--jobs", "1"]) == 0
    return repo


def _table(results: Path) -> dict:
    return json.loads((results / "batches" / "taskB" / "batch1" / "phaseA.json").read_text())


def test_a_run_after_the_challenge_is_scored_against_the_gold_and_listed_apart(after_repo):
    entry = json.loads((after_repo / "results" / "index.json").read_text())["runs"][AFTER_RUN]
    assert entry["status"] == "scored" and entry["after"] is True and entry["late"] is False
    assert entry["received"] == ARRIVED
    table = _table(after_repo / "results")
    [row] = table["after"]
    assert (row["team"], row["system"], row["received"]) == ("helix", "helix-dense", ARRIVED)
    # the same answers against the same gold: the challenge run's numbers
    assert row["measures"] == table["systems"]["helix/helix-hybrid"]["measures"]
    # and never ranked: no ranking, significance test, average rank or overview changed
    before = _table(after_repo.parent / "results-before")
    assert table["rankings"] == before["rankings"] and table["systems"] == before["systems"]
    overview = "overview/taskB.json"
    assert (json.loads((after_repo / "results" / overview).read_text())
            == json.loads((after_repo.parent / "results-before" / overview).read_text()))


def test_the_board_shows_it_in_its_own_section_with_its_date(after_repo):
    html = (after_repo / "_site" / "taskB" / "batch1" / "phaseA.html").read_text(encoding="utf-8")
    head, section = html.split('id="after-the-challenge"', 1)
    assert ARRIVED in section and ARRIVED not in head  # its date, only in its section
    assert f'<time datetime="{ARRIVED}">1 June 2026, 09:00 UTC</time>' in section  # as run pages show times
    page = Page(section)
    [table] = [t for t in page.tables if t["id"] and "after" in t["id"]]
    assert len(table["rows"]) == 1 + 1  # the header row and the run's
    download = json.loads((after_repo / "_site" / "downloads" / "taskB-batch1-phaseA-after.json").read_text())
    assert [r["received"] for r in download["rows"]] == [ARRIVED]


def _page(repo: Path, run: str) -> str:
    """The site page of run path ``run`` (a run after the challenge: under runs/after/)."""
    parts = run.removesuffix(".json").split("/")[1:]
    return (repo / "_site" / "runs" / "/".join(parts)).with_suffix(".html").read_text(encoding="utf-8")


def _csv_rows(path: Path) -> list[list[str]]:
    return list(csv.reader(path.read_text(encoding="utf-8").splitlines()))


def test_a_run_after_the_challenge_has_a_page_of_its_own_linked_from_its_section(after_repo):
    """Its values per question (the challenge run's with the same answers), its date, marked
    after the challenge and not ranked; the challenge run of the same system keeps its own
    page, and no head-to-head page links to it."""
    page = _page(after_repo, AFTER_RUN)
    assert "after the challenge, not ranked" in page and ARRIVED in page
    downloads = after_repo / "_site" / "downloads"
    mine = _csv_rows(downloads / "after-run.taskB.batch1.phaseA.helix.helix-dense.questions.csv")
    same = _csv_rows(downloads / "run.taskB.batch1.phaseA.helix.helix-hybrid.questions.csv")
    assert len(mine) > 1 and mine == same
    challenge = _page(after_repo, "submissions/taskB/batch1/phaseA/helix/helix-dense.json")
    assert "after the challenge, not ranked" not in challenge
    assert (_csv_rows(downloads / "run.taskB.batch1.phaseA.helix.helix-dense.questions.csv")
            == _csv_rows(after_repo.parent / "site-before" / "downloads"
                         / "run.taskB.batch1.phaseA.helix.helix-dense.questions.csv"))
    html = (after_repo / "_site" / "taskB" / "batch1" / "phaseA.html").read_text(encoding="utf-8")
    section = html.split('id="after-the-challenge"', 1)[1]
    assert 'href="../../runs/after/taskB/batch1/phaseA/helix/helix-dense.html"' in section
    assert not [p for p in (after_repo / "_site" / "compare").rglob("*.html") if "runs/after/" in p.read_text()]
    system = (after_repo / "_site" / "teams" / "helix" / "helix-dense.html").read_text(encoding="utf-8")
    assert "../../runs/after/taskB/batch1/phaseA/helix/helix-dense.html" in system  # its system's page lists it


def test_a_run_after_the_challenge_that_fails_is_listed_in_its_section_with_its_located_error(after_repo):
    """As the board lists its own runs that failed: in the section, with the reason, linked
    to its page, which gives every problem at its line."""
    html = (after_repo / "_site" / "taskB" / "batch1" / "phaseA.html").read_text(encoding="utf-8")
    head, section = html.split('id="after-the-challenge"', 1)
    assert "quokka-1" in section and FAILED_ARRIVED in section and "failed:" in section
    assert 'href="../../runs/after/taskB/batch1/phaseA/quokka/quokka-1.html"' in section
    page = _page(after_repo, FAILED_RUN)
    assert "Why this run could not be scored" in page and f"{FAILED_RUN}:3" in page
    assert "after the challenge, not ranked" in page
    entry = json.loads((after_repo / "results" / "index.json").read_text())["runs"][FAILED_RUN]
    assert entry["status"] == "error" and entry["after"] is True


SEALED_AFTER_RUN = "submissions/after/taskB/batch2/phaseB/quokka/quokka-mesh.json"


def _sent_after_on_sealed_gold(demo: Path) -> str:
    """The demo with its own key and quokka-1's Phase B answers of batch 2 (sealed gold in
    these tests) sent again after the challenge as quokka-mesh, arrived at ``ARRIVED``;
    the run's path."""
    _with_key(demo)
    (demo / SEALED_AFTER_RUN).parent.mkdir(parents=True)
    shutil.copy(demo / "submissions/taskB/batch2/phaseB/quokka/quokka-1.json", demo / SEALED_AFTER_RUN)
    (demo / "submissions" / "received.json").write_text(json.dumps({SEALED_AFTER_RUN: ARRIVED}), encoding="utf-8")
    return SEALED_AFTER_RUN


def test_a_run_after_the_challenge_on_sealed_gold_is_scored_by_the_publish_job_alone(demo):
    """With sealed gold, only the holder of the key (the publish job) scores it, and to the
    numbers of the same answers sent during the challenge."""
    later = _sent_after_on_sealed_gold(demo)
    _seal_folder(demo, SEALED_BATCH)
    assert later in score_all(demo, jobs=1).awaiting_gold  # no key: it waits for the publish job
    summary = score_all(demo, jobs=1, identity=KEY.identity)
    assert later in summary.scored and not summary.failed
    table = json.loads((demo / "results" / "batches" / "taskB" / "batch2" / "phaseB.json").read_text())
    [row] = table["after"]
    assert (row["system"], row["received"]) == ("quokka-mesh", ARRIVED)
    assert row["measures"] == table["systems"]["quokka/quokka-1"]["measures"]
    assert all("quokka/quokka-mesh" != r["system"] for ranking in table["rankings"].values()
               for r in ranking["records"])


def test_the_page_of_a_run_after_the_challenge_on_sealed_gold_lists_its_own_items_and_nothing_of_the_gold(
        demo, tmp_path):
    """As the sealed batch's run pages: question by question what the run returned,
    unmarked, its values, and no string only the gold holds; while it waits for the
    publish job (no key), the board's section lists it as awaiting gold."""
    from scorer.site.build import build_site
    later = _sent_after_on_sealed_gold(demo)
    runs = [json.loads(p.read_text()) for p in (demo / "submissions").rglob("*.json") if "batch2" in p.parts]
    sent = "\n".join(json.dumps(r) for r in runs)
    secrets = {s for phase in ("phaseA", "phaseB")
               for s in gold_only_strings(json.loads((demo / SEALED_BATCH / f"{phase}.json").read_text()), runs)
               if json.dumps(s)[1:-1] not in sent}
    _seal_folder(demo, SEALED_BATCH)
    assert later in score_all(demo, jobs=1).awaiting_gold  # without the key it waits, and is seen waiting
    build_site(demo, tmp_path / "waiting", jobs=1)
    board = (tmp_path / "waiting" / "taskB" / "batch2" / "phaseB.html").read_text(encoding="utf-8")
    section = board.split('id="after-the-challenge"', 1)[1]
    assert 'href="../../runs/after/taskB/batch2/phaseB/quokka/quokka-mesh.html"' in section
    assert f'received <time datetime="{ARRIVED}">1 June 2026, 09:00 UTC</time>: awaiting gold' in section
    assert not score_all(demo, jobs=1, identity=KEY.identity).failed
    build_site(demo, tmp_path / "site", jobs=1)
    folder = tmp_path / "site" / "runs" / "after" / "taskB" / "batch2" / "phaseB"
    page = (folder / "quokka" / "quokka-mesh.html").read_text(encoding="utf-8")
    assert "after the challenge, not ranked" in page and ARRIVED in page and "nothing marked" in page
    assert "✓" not in page and "the gold has" not in page.lower()
    assert len(secrets) > 10 and leaks(folder, secrets) == []


def test_a_run_after_the_challenge_merged_but_not_yet_timed_holds_the_next(repo):
    """Merged, the publish job not yet run: its arrival is not in the ledger, so the next waits."""
    git(repo, "checkout", "-q", "main")
    commit(repo, {LATER_RUN: phase_a_run("q1", "q2")}, "merged, not yet published")
    git(repo, "checkout", "-q", "-B", "pr2", "main")
    commit(repo, {OTHER_SYSTEM: phase_a_run("q1")})
    code, body, _, _ = check(repo, now=_shifted(AFTER, 100))
    assert code == 1 and codes(only(body)) == ["after-run-pending"] and LATER_RUN in only(body)["reasons"][0]["message"]
