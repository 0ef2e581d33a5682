"""A trusted, blind pool (issue 33): the pool's key never lies in the folder handed to the
assessors (nor in git), the judging page cannot be framed, and ``assess merge`` writes
only the batch's own gold, whatever path the pool names.  Commands as organizers and
assessors type them, on a copy of the demo's batch 1 Phase A."""
from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from scorer.cli import main

ROOT = Path(__file__).resolve().parents[1]
NOW = "2030-01-01T00:00:00Z"
FOLDER = Path("assessment/taskB/batch1/phaseA")


@pytest.fixture
def repo(tmp_path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    shutil.copy(ROOT / "challenge.toml", repo)
    for part in ("teams", "gold", "submissions", "testsets"):
        shutil.copytree(ROOT / part, repo / part)
    return repo


def make_pool(repo: Path, *extra: str) -> Path:
    assert main(["pool", "--repo", str(repo), "--batch", "batch1", "--phase", "phaseA", "--now", NOW, *extra]) == 0
    return repo / FOLDER


def the_key(repo: Path) -> Path:
    (key,) = repo.rglob("pool-key.json")
    return key


def test_the_key_is_written_outside_the_pool_folder_and_git_ignores_it(repo, tmp_path):
    folder = make_pool(repo)
    key = the_key(repo)
    assert not key.is_relative_to(folder) and sorted(p.name for p in folder.iterdir()) == ["pool.json"]
    assert json.loads(key.read_text())["items"]  # item -> runs, for the organizers
    # init's .gitignore and this repository's ignore it, and the demo commits none
    for gitignore in (ROOT / "scorer/templates/init/gitignore", ROOT / ".gitignore"):
        shutil.copy(gitignore, repo / ".gitignore")
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
        ignored = subprocess.run(["git", "-C", str(repo), "check-ignore", "-q", str(key.relative_to(repo))])
        assert ignored.returncode == 0, gitignore
        stray = subprocess.run(["git", "-C", str(repo), "check-ignore", "-q", "assessment/x/pool-key.json"])
        assert stray.returncode == 0, gitignore
    assert not list((ROOT / "assessment").rglob("pool-key.json"))


def test_pool_refuses_a_key_inside_the_pool_folder(repo, capsys):
    out = repo / "handed-out"
    assert main(["pool", "--repo", str(repo), "--batch", "batch1", "--phase", "phaseA", "--now", NOW,
                 "--out", str(out), "--key", str(out / "sub" / "k.json")]) == 1
    err = capsys.readouterr().err
    assert "k.json" in err and "not be blind" in err and "fix:" in err
    assert not (out / "pool.json").exists() and not (out / "sub" / "k.json").exists()


def test_assess_refuses_a_folder_that_holds_a_key(repo, capsys):
    folder = make_pool(repo)
    shutil.copy(the_key(repo), folder / "pool-key.json")  # an organizer's slip: the key handed out with the pool
    assert main(["assess", str(folder), "--assessor", "alice", "--port", "0"]) == 1
    err = capsys.readouterr().err
    assert f"{folder / 'pool-key.json'}" in err and "not blind" in err and "fix: move it out" in err
    assert not (folder / "judgements").exists()


def test_the_judging_page_cannot_be_framed(repo):
    """The real server, as ``python -m scorer assess`` starts it."""
    folder = make_pool(repo)
    process = subprocess.Popen([sys.executable, "-m", "scorer", "assess", str(folder), "--assessor", "alice",
                                "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        line = process.stdout.readline()
        assert "open http://127.0.0.1:" in line, line + process.stderr.read()
        url = line.split("open ", 1)[1].split(" ", 1)[0]
        with urllib.request.urlopen(url, timeout=10) as answer:
            headers = answer.headers
        assert headers["X-Frame-Options"] == "DENY"
        policy = [part.strip() for part in headers["Content-Security-Policy"].split(";")]
        assert "frame-ancestors 'none'" in policy
    finally:
        process.kill()
        process.wait(timeout=10)


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("where", ["absolute", "relative"])
def test_merge_writes_only_the_batchs_own_gold(repo, tmp_path, capsys, where):
    """A pool (and a key vouching for it) that names a gold file outside the repository:
    merge refuses it, and no file outside is written."""
    folder = make_pool(repo)
    outside = tmp_path / "outside" / "phaseA.json"
    outside.parent.mkdir()
    shutil.copy(repo / "gold/taskb/batch1/phaseA.json", outside)
    before = outside.read_bytes()
    pool = json.loads((folder / "pool.json").read_text())
    pool["gold"] = str(outside) if where == "absolute" else "../outside/phaseA.json"
    pool["gold_sha256"] = sha256(outside)
    (folder / "pool.json").write_text(json.dumps(pool))
    digest = sha256(folder / "pool.json")
    key = the_key(repo)
    key.write_text(json.dumps({**json.loads(key.read_text()), "pool_sha256": digest}))
    first = pool["questions"][0]
    judgements = {"version": 1, "assessor": "alice", "pool": digest,
                  "judgements": {f"{first['id']}/{first['documents'][0]['item']}": {"relevant": True}}}
    (tmp_path / "alice.json").write_text(json.dumps(judgements))
    code = main(["assess", "merge", str(folder), str(tmp_path / "alice.json"), "--repo", str(repo)])
    err = capsys.readouterr().err
    assert code == 1 and "/gold" in err and "gold/taskb/batch1/phaseA.json" in err and "fix:" in err
    assert outside.read_bytes() == before and sorted(p.name for p in outside.parent.iterdir()) == ["phaseA.json"]
    assert not (repo / "gold/taskb/batch1/preliminary").exists()


def test_merge_refuses_a_pool_changed_since_its_key_was_written(repo, tmp_path, capsys):
    folder = make_pool(repo)
    pool = json.loads((folder / "pool.json").read_text())
    pool["questions"] = pool["questions"][:1]
    (folder / "pool.json").write_text(json.dumps(pool))
    judgements = {"version": 1, "assessor": "alice", "pool": sha256(folder / "pool.json"), "judgements": {}}
    (tmp_path / "alice.json").write_text(json.dumps(judgements))
    assert main(["assess", "merge", str(folder), str(tmp_path / "alice.json"), "--repo", str(repo)]) == 1
    err = capsys.readouterr().err
    assert "pool_sha256" in err and "fix:" in err
    assert not (repo / "gold/taskb/batch1/preliminary").exists()
