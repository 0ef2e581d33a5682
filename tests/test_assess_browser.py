"""The judging page of ``python -m scorer assess`` in headless Chromium, end to end: judge
with the keyboard, close the page and kill the server, start again, reopen, resume;
nothing confirmed is lost, and the judgements file is what the page showed.  Needs
Chromium and chromedriver like tests/test_browser.py (it skips the same way)."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from scorer.assessment.pool import build_pool
from scorer.cli import main
from scorer.formats.taskb import read_taskb
from scorer.store.files import canonical_json

from test_browser import driver, webdriver_module  # noqa: F401  (fixtures)

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def pool_folder(tmp_path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    shutil.copy(ROOT / "challenge.toml", repo)
    for part in ("teams", "gold", "submissions", "testsets"):
        shutil.copytree(ROOT / part, repo / part)
    folder = tmp_path / "pool"
    assert main(["pool", "--repo", str(repo), "--batch", "batch1", "--phase", "phaseA", "--out", str(folder),
                 "--now", "2030-01-01T00:00:00Z"]) == 0
    return folder


class Server:
    """``python -m scorer assess`` as a real process, on a free port."""

    def __init__(self, folder: Path):
        self.process = subprocess.Popen(
            [sys.executable, "-m", "scorer", "assess", str(folder), "--assessor", "alice", "--port", "0"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
        line = self.process.stdout.readline()
        assert "open http://127.0.0.1:" in line, line + self.process.stderr.read()
        self.url = line.split("open ", 1)[1].split(" ", 1)[0]

    def kill(self) -> None:
        self.process.kill()
        self.process.wait(timeout=10)


def wait_for(driver, condition, timeout=10.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = driver.execute_script(condition)
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"not true within {timeout} s: {condition}")


def press(driver, key: str) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    ActionChains(driver).send_keys(key).perform()


def saved(driver, key: str) -> None:
    wait_for(driver, f"return document.getElementById('status').textContent === 'saved {key}'")


def test_judge_close_kill_restart_resume(driver, pool_folder):  # noqa: F811
    pool = json.loads((pool_folder / "pool.json").read_text())
    first = pool["questions"][0]
    d1, d2 = (f"{first['id']}/{item['item']}" for item in first["documents"][:2])
    server = Server(pool_folder)
    try:
        driver.get(server.url)
        wait_for(driver, "return document.querySelectorAll('section.item').length > 0")
        press(driver, "r")
        saved(driver, d1)
        press(driver, "j")
        press(driver, "n")
        saved(driver, d2)
        assert "2 of " in driver.find_element("id", "progress").text
        driver.get("about:blank")  # the tab is closed
    finally:
        server.kill()  # and the server killed, without a chance to flush anything
    path = pool_folder / "judgements" / "alice.json"
    assert json.loads(path.read_text())["judgements"] == {d1: {"relevant": True}, d2: {"relevant": False}}

    server = Server(pool_folder)
    try:
        driver.get(server.url)
        wait_for(driver, "return document.querySelectorAll('section.item').length > 0")
        assert "2 of " in driver.find_element("id", "progress").text
        boxes = driver.find_elements("css selector", "section.item")
        assert "not relevant" in boxes[1].text and "relevant" in boxes[0].text
        # the page resumes at the first unjudged item of the question once it is chosen
        press(driver, "j")
        press(driver, "j")
        press(driver, "r")
        third = f"{first['id']}/{first['documents'][2]['item']}"
        saved(driver, third)
        press(driver, "x")  # withdraw it again
        wait_for(driver, f"return document.getElementById('status').textContent === 'saved {third}'")
    finally:
        server.kill()
    assert json.loads(path.read_text())["judgements"] == {d1: {"relevant": True}, d2: {"relevant": False}}


def test_the_server_refuses_other_hosts_and_requests_without_the_token(pool_folder):
    import urllib.error
    import urllib.request
    server = Server(pool_folder)
    try:
        port = server.url.rsplit(":", 1)[1].strip("/")
        request = urllib.request.Request(server.url + "state", headers={"Host": f"evil.example:{port}"})
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(request, timeout=10)
        assert info.value.code == 403
        body = json.dumps({"key": "x/d1", "judgement": {"relevant": True}}).encode()
        request = urllib.request.Request(server.url + "judge", data=body, method="POST",
                                         headers={"Content-Type": "application/json"})
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(request, timeout=10)
        assert info.value.code == 403
    finally:
        server.kill()


def test_the_page_shows_every_text_of_a_snippet_and_marks_the_conflict(driver, tmp_path):  # noqa: F811
    """An attacker's text at an honest team's offsets: both are shown, each marked."""
    def snippet(text):
        return {"document": "http://www.ncbi.nlm.nih.gov/pubmed/3", "beginSection": "abstract",
                "endSection": "abstract", "offsetInBeginSection": 0, "offsetInEndSection": 10, "text": text}
    gold = read_taskb({"questions": [{"id": "q1", "body": "Which?", "type": "list", "documents": [], "snippets": []}]})
    runs = {f"phaseA/{team}/s1": read_taskb({"questions": [{"id": "q1", "snippets": [snippet(text)]}]})
            for team, text in (("honest", "True text."), ("evil", "AAAAAAAAAA"))}
    meta = {"task": "taskB", "batch": "b1", "phase": "phaseA", "gold": "gold/taskb/b1/phaseA.json",
            "gold_sha256": "0" * 64}
    folder = tmp_path / "pool"
    folder.mkdir()
    (folder / "pool.json").write_bytes(canonical_json(
        build_pool(gold, runs, kinds=("documents", "snippets"), meta=meta).document))
    server = Server(folder)
    try:
        driver.get(server.url)
        wait_for(driver, "return document.querySelectorAll('section.item').length === 2")
        boxes = [box.text for box in driver.find_elements("css selector", "section.item")]
        assert "AAAAAAAAAA" in boxes[0] and "True text." in boxes[1]
        assert "The runs disagree on this text: s2" in boxes[0] and "The runs disagree on this text: s1" in boxes[1]
    finally:
        server.kill()
