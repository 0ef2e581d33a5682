"""The built demo site in a real browser: headless Chromium driven by Selenium.

Needs Debian's ``chromium`` and ``chromium-driver`` (``/usr/bin/chromium``,
``/usr/bin/chromedriver``; ``.ci/run`` installs them when it runs as root) and the
``selenium`` package (the ``test`` extras).  Without them every test here skips and says
why.  Selenium Manager is never used: the driver and the browser are given by path and
``SE_OFFLINE=true`` keeps it from reaching the network.

Checked: every page loads from file:// without a console error and every internal link
and anchor of every page resolves (the hrefs as the browser resolves them); the same
site served from a sub-path over HTTP; sorting (aria-sort, missing values last, both
directions, keyboard); the skip link and a visible focus outline; the head-to-head picker
(only with JavaScript, opens the pre-rendered pair); wide tables scroll inside their box
at a 390 px wide viewport while the page itself does not; the footer's ``<details>``;
participant names with markup shown as text; WCAG AA contrast of every text on the main
page types from computed styles.  Issue 28: each kind of board shows the scores it ranks on;
no board, run page (per-question tables) or head-to-head page is wider than 1,280 px, and
every table that scrolls shows the cue; the filtered views (open weights, primary runs, no
earlier BioASQ test data, no web search or agents) hold
exactly the matching runs; each overview follows its stated order; folded legend, titled
headers, readable times.  Screenshots of every page kind at 1,280 and 390 px go to
``test-artifacts/screenshots/<kind>-<width>.png`` (ignored by Git) for a person to review:
``python -m pytest -n 0 tests/test_browser.py -k screenshots``.

Speed: the checks of many pages read them from one crawl per test run (``crawled`` at
1,280 px, ``crawled_narrow`` at 390 px: each page loaded once and read by every script in
one call), not from a load per check; the site is built once per run; both are shared by
the xdist workers (``once_per_run``).
"""
from __future__ import annotations

import base64
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

ROOT = Path(__file__).resolve().parent.parent
# Debian's packages; the variables only point elsewhere (or, set to a missing path, show the skip)
CHROMIUM = Path(os.environ.get("BROWSER_TEST_CHROMIUM", "/usr/bin/chromium"))
CHROMEDRIVER = Path(os.environ.get("BROWSER_TEST_CHROMEDRIVER", "/usr/bin/chromedriver"))
SCREENSHOTS = ROOT / "test-artifacts" / "screenshots"
DEMO = ("challenge.toml", "teams", "gold", "submissions", "testsets", "docs", "demo")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars", "--force-device-scale-factor=1", "--lang=en-US")
DESKTOP = (1280, 900)
LEADERBOARD = "taskB/batch2/phaseB.html"  # baseline, late and unranked rows, missing values
PHASE_A = "taskB/batch1/phaseA.html"      # a system that did not answer one category ("-")
TEAM_WITH_MARKUP = "teams/medqa-friends.html"
TEAM_NAME = '<b>MedQA</b> & "Friends"'

# --- fixtures ----------------------------------------------------------------------------


def _browser_missing() -> str | None:
    for path, package in ((CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")):
        if not path.is_file():
            return (f"{path} is missing: install Debian's {package} "
                    "(apt-get install chromium chromium-driver; .ci/run does it as root)")
    return None


@pytest.fixture(scope="session")
def webdriver_module():
    try:
        from selenium import webdriver
    except ImportError:
        pytest.skip("selenium is not installed (pip install -e '.[test]')")
    reason = _browser_missing()
    if reason:
        pytest.skip(reason)
    return webdriver


def build_demo(repo: Path, renames: dict | None = None) -> Path:
    """The demo challenge copied to ``repo`` and built; ``renames``: teams file -> (old, new) text."""
    from scorer.cli import main

    repo.mkdir(parents=True)
    for part in DEMO:
        source = ROOT / part
        if source.is_dir():
            shutil.copytree(source, repo / part)
        elif source.is_file():
            shutil.copy(source, repo / part)
    for name, (old, new) in (renames or {}).items():
        teams = repo / "teams" / name
        text = teams.read_text(encoding="utf-8")
        assert old in text, (name, old)
        teams.write_text(text.replace(old, new), encoding="utf-8")
    assert main(["build", "--repo", str(repo), "--jobs", "1"]) == 0
    return (repo / "_site").resolve()


def once_per_run(tmp_path_factory, name: str, make) -> Path:
    """``<run's temporary folder>/<name>``, made by ``make(path)`` once per test run.

    The run's folder is the one every xdist worker of the run shares (a worker's own
    ``basetemp`` is a sub-folder of it; without xdist it is ``basetemp`` itself), so the
    first worker to ask makes it while holding ``<name>.lock`` and the others wait, then
    reuse it.  ``<name>.done`` is written only after ``make`` returned: what a failed
    attempt left behind is removed and made again by the next one to ask.
    """
    import fcntl

    base = tmp_path_factory.getbasetemp()
    root = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    path, done = root / name, root / f"{name}.done"
    with open(root / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not done.exists():
            if path.is_dir():
                shutil.rmtree(path)
            path.unlink(missing_ok=True)
            make(path)
            done.touch()
    return path


@pytest.fixture(scope="session")
def site(tmp_path_factory, webdriver_module) -> Path:
    """The demo challenge built once per test run (shared by the xdist workers), from a copy of its files."""
    made = once_per_run(tmp_path_factory, "browser-demo", lambda path: build_demo(path / "repo"))
    return (made / "repo" / "_site").resolve()


LONG_NAME = "Quokka first attempt: cross-encoder re-ranking with self-consistency voting over five readers (v3)"


@pytest.fixture(scope="session")
def long_name_site(tmp_path_factory, webdriver_module) -> Path:
    """The demo with a system (in the Task B and mcqa diagrams) renamed to a long name."""
    renames = {"quokka.toml": ('name = "Quokka first attempt"', f'name = "{LONG_NAME}"')}
    made = once_per_run(tmp_path_factory, "browser-long-name", lambda path: build_demo(path / "repo", renames))
    return (made / "repo" / "_site").resolve()


@pytest.fixture(scope="session")
def driver(webdriver_module, tmp_path_factory):
    os.environ["SE_OFFLINE"] = "true"  # Selenium Manager: no network, no download
    from selenium.webdriver.chrome.service import Service

    options = webdriver_module.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}")
    options.add_argument(f"--window-size={DESKTOP[0]},{DESKTOP[1]}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    browser = webdriver_module.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    browser.set_page_load_timeout(20)
    browser.set_script_timeout(10)
    try:
        yield browser
    finally:
        browser.quit()


def reset(driver) -> None:
    """The 1,280 x 900 window (no emulated device), JavaScript on, no smooth scrolling (a
    click lands where the element is, not where it was), the console logs forgotten."""
    driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    driver.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": False})
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia",
                           {"features": [{"name": "prefers-reduced-motion", "value": "reduce"}]})
    driver.get_log("browser")  # forget what earlier tests logged


@pytest.fixture
def page(driver, site):
    """Opens a page of the site (file://) at desktop size; console errors fail the test."""
    reset(driver)

    def open_page(path: str):
        return load(driver, (site / path).as_uri())

    yield open_page
    errors = severe(driver.get_log("browser"))
    assert not errors, errors


def open_and_read(driver, url: str, script: str = "return null;"):
    """``driver.get`` and then wait until that document has finished loading; what
    ``script`` (a function body, not using ``arguments``) returns on it, run in the very call
    that saw the document loaded (one round trip to the browser, not two).

    ``driver.get`` waits for the load event, yet on a loaded 2-core machine chromedriver was
    seen to return while the new document was still being parsed (the stylesheet applied,
    the deferred site.js not yet run).  Deferred scripts run before ``readyState`` becomes
    "complete", so waiting for it (on the requested URL) makes what the test reads final.
    """
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get(url)
    wanted = url.split("#")[0]
    ready = ("if (document.readyState !== 'complete' || location.href.split('#')[0] !== arguments[0]) return null;"
             f"return {{read: (() => {{ {script} }})()}};")
    return WebDriverWait(driver, 20, poll_frequency=0.05).until(
        lambda d: d.execute_script(ready, wanted))["read"]


def load(driver, url: str):
    """``open_and_read`` of nothing: the driver, on the loaded page at ``url``."""
    open_and_read(driver, url)
    return driver


def severe(entries) -> list[str]:
    return [e["message"] for e in entries if e.get("level") == "SEVERE"]


# --- every page read once: what the checks of many pages look at ---------------------------

#: A phone held upright: the narrow view the checks at 390 px emulate.
NARROW_VIEW = {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True}


class Crawl:
    """What the browser read on the pages of a crawl: ``facts[path][name]`` holds
    ``{"value": ...}`` (what the script ``name`` returned) or ``{"error": ...}`` (what it
    raised), ``console[path]`` the page's SEVERE console messages."""

    def __init__(self, data: dict):
        self.facts, self.console = data["facts"], data["console"]

    def result(self, path: str, name: str):
        """What the script ``name`` returned on ``path``; a located failure if it raised."""
        assert path in self.facts, f"{path}: not crawled"
        read = self.facts[path][name]
        assert "error" not in read, f"{path}: the script {name} raised {read['error']}"
        return read["value"]

    def read(self, path: str, name: str):
        """``result(path, name)`` of a page that logged no console error (as ``page`` checks)."""
        value = self.result(path, name)
        assert not self.console[path], f"{path}: console: {self.console[path]}"
        return value


def crawl(driver, site: Path, pages: list[str], scripts: dict[str, str], view: dict | None) -> dict:
    """Each of ``pages`` loaded afresh from file:// (``reset`` first, then ``view`` emulated
    if given) and read by all ``scripts`` (name -> body, read-only, in this order) in one
    call: the data of a ``Crawl``."""
    from selenium.common.exceptions import WebDriverException

    calls = ", ".join(f"{json.dumps(name)}: (() => {{ try {{ return {{value: (() => {{ {body} }})()}}; }} "
                      "catch (e) { return {error: String(e)}; } })()" for name, body in scripts.items())
    read = f"return {{{calls}}};"
    reset(driver)
    if view:
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", view)
    facts, console = {}, {}
    try:
        for path in pages:
            try:
                facts[path] = open_and_read(driver, (site / path).as_uri(), read)
            except WebDriverException as err:  # a page that never finished loading, a browser gone
                raise AssertionError(f"{path}: not read: {type(err).__name__} {err.msg or ''}") from err
            console[path] = severe(driver.get_log("browser"))
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    return {"facts": facts, "console": console}


def crawled_once(request, site: Path, name: str, pages: list[str], scripts: dict[str, str],
                 view: dict | None) -> Crawl:
    """``crawl`` of the session's site made once per test run (``once_per_run``: the xdist
    workers share it, and only the one that makes it needs the ``driver``), kept as JSON."""
    def make(path: Path) -> None:
        data = crawl(request.getfixturevalue("driver"), site, pages, scripts, view)
        path.write_text(json.dumps(data), encoding="utf-8")

    made = once_per_run(request.getfixturevalue("tmp_path_factory"), name, make)
    return Crawl(json.loads(made.read_text(encoding="utf-8")))


@pytest.fixture(scope="session")
def crawled(request, site) -> Crawl:
    """Every HTML page of the site at 1,280 px (the window), read by each script the checks
    of many pages use: loaded once per test run instead of once per check."""
    pages = sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html"))
    scripts = {"MAIN_TABLES": MAIN_TABLES, "WIDTHS": WIDTHS, "PAGE_FACTS": PAGE_FACTS,
               "RANKED_VALUES": RANKED_VALUES, "FILTERED_ROWS": FILTERED_ROWS, "PLAIN_WORDS": PLAIN_WORDS,
               "LATE_LINKS": LATE_LINKS, "BOARD_TABLES": BOARD_TABLES, "OVERVIEW_ROWS": OVERVIEW_ROWS}
    return crawled_once(request, site, "browser-crawl-1280.json", pages, scripts, None)


@pytest.fixture(scope="session")
def crawled_narrow(request, site) -> Crawl:
    """Every leaderboard and overview at 390 px (``NARROW_VIEW``), read by ``MAIN_TABLES``
    and ``WIDTHS``."""
    return crawled_once(request, site, "browser-crawl-390.json", leaderboards(site),
                        {"MAIN_TABLES": MAIN_TABLES, "WIDTHS": WIDTHS}, NARROW_VIEW)


def by_css(driver, selector):
    from selenium.webdriver.common.by import By
    return driver.find_element(By.CSS_SELECTOR, selector)


def all_by_css(driver, selector):
    from selenium.webdriver.common.by import By
    return driver.find_elements(By.CSS_SELECTOR, selector)


def press(driver, *keys):
    from selenium.webdriver.common.action_chains import ActionChains
    chain = ActionChains(driver)
    for key in keys:
        chain.send_keys(key)
    chain.perform()


# --- every page: console, links, anchors --------------------------------------------------

PAGE_FACTS = """
return {
  links: Array.from(document.querySelectorAll('a[href]'), a => a.href),
  resources: Array.from(document.querySelectorAll('link[href], script[src], img[src]'),
                        e => e.href || e.src),
  ids: Array.from(document.querySelectorAll('[id]'), e => e.id),
  title: document.title,
  h1: Array.from(document.querySelectorAll('h1'), h => h.textContent.trim()),
  styled: getComputedStyle(document.querySelector('.site-header')).display === 'flex',
  scripted: document.querySelectorAll('table.sortable').length ===
            document.querySelectorAll('table.sortable thead th:first-child button.sort').length,
};
"""


def test_every_page_loads_without_console_errors_and_every_link_resolves(crawled, site):
    """A crawl of every HTML page of the site from file://, as the browser resolves hrefs."""
    html = sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html"))
    assert len(html) > 50
    facts = {path: crawled.result(path, "PAGE_FACTS") for path in html}
    problems = [f"{path}: console: {m}" for path in html for m in crawled.console[path]]
    base = site.as_uri() + "/"
    for path, f in facts.items():
        if not f["title"] or len(f["h1"]) != 1 or not f["h1"][0]:
            problems.append(f"{path}: title {f['title']!r}, h1 {f['h1']!r}")
        if not f["styled"] or not f["scripted"]:
            problems.append(f"{path}: site.css applied {f['styled']}, site.js ran {f['scripted']}")
        for url in f["links"] + f["resources"]:
            parts = urlsplit(url)
            if parts.scheme in ("http", "https", "mailto"):
                continue
            if parts.scheme != "file" or not url.startswith(base):
                problems.append(f"{path}: link outside the site: {url}")
                continue
            target = Path(unquote(parts.path))
            if not target.is_file():
                problems.append(f"{path}: broken link {url[len(base):]}")
            elif parts.fragment and target.suffix == ".html":
                ids = facts[target.relative_to(site).as_posix()]["ids"]
                if unquote(parts.fragment) not in ids:
                    problems.append(f"{path}: no id {parts.fragment!r} on {target.relative_to(site)}")
    assert not problems, f"{len(problems)} problem(s): " + "\n".join(problems[:30])


# --- participant text ---------------------------------------------------------------------


def test_a_name_with_markup_shows_as_text(page):
    driver = page(TEAM_WITH_MARKUP)
    assert by_css(driver, "h1").text == TEAM_NAME
    assert not all_by_css(driver, "main b, main i, h1 *"), "participant markup became elements"
    system = by_css(driver, ".system-card h3 a")
    description = by_css(driver, ".system-card .participant-text").text
    assert "<v2>" in system.text and "<i>this</i>" in description
    driver = page("teams.html")
    row = by_css(driver, "a[href='teams/medqa-friends.html']")
    assert row.text == TEAM_NAME and not all_by_css(driver, "main b")
    driver = page(LEADERBOARD)
    assert TEAM_NAME in by_css(driver, "main table").text
    assert not all_by_css(driver, "main b")


# --- sorting --------------------------------------------------------------------------------

COLUMN = """
const [table, index] = arguments;
return Array.from(table.tBodies[0].rows, r => {
  const c = r.cells[index];
  return [c.getAttribute('data-sort'), c.textContent.trim()];
});
"""


def _column_index(table, label: str) -> int:
    heads = [" ".join(th.text.split()) for th in table.find_elements("css selector", "thead th")]  # labels may wrap
    return next(i for i, text in enumerate(heads) if text.startswith(label))


def _check_sorted(values, ascending: bool, numeric: bool):
    keys = [(float(s) if s not in (None, "") else None) if numeric else t.lower() for s, t in values]
    present = [k for k in keys if k is not None]
    missing_at = [i for i, k in enumerate(keys) if k is None]
    assert missing_at == list(range(len(present), len(keys))), f"missing values not last: {values}"
    assert present == sorted(present, reverse=not ascending), values


def test_sorting_numbers_and_text_with_aria_sort_and_missing_values_last(page):
    driver = page("taskB/batch2/phaseA.html")  # nb-qa returns no snippets
    table = all_by_css(driver, "table.sortable")[0]
    heads = table.find_elements("css selector", "thead th")
    assert all(th.find_elements("css selector", "button.sort") for th in heads)
    assert not [th for th in heads if th.get_attribute("aria-sort")]
    # a numeric column where one system has no value
    values = driver.execute_script(COLUMN, table, _column_index(table, "Snippets F1"))
    assert any(s in (None, "") for s, _ in values), "the demo should have a missing value here"
    index = _column_index(table, "Snippets F1")
    button = heads[index].find_element("css selector", "button.sort")
    for ascending in (True, False, True):
        button.click()
        assert heads[index].get_attribute("aria-sort") == ("ascending" if ascending else "descending")
        assert [th.get_attribute("aria-sort") for th in heads].count(None) == len(heads) - 1
        _check_sorted(driver.execute_script(COLUMN, table, index), ascending, numeric=True)
    # a text column, from the keyboard
    name = _column_index(table, "System")
    heads[name].find_element("css selector", "button.sort").send_keys("\n")
    assert heads[name].get_attribute("aria-sort") == "ascending"
    assert heads[index].get_attribute("aria-sort") is None
    _check_sorted(driver.execute_script(COLUMN, table, name), True, numeric=False)
    press(driver, " ")
    assert heads[name].get_attribute("aria-sort") == "descending"
    _check_sorted(driver.execute_script(COLUMN, table, name), False, numeric=False)


# --- keyboard: skip link and focus ----------------------------------------------------------

FOCUS = """
const e = document.activeElement, s = getComputedStyle(e), r = e.getBoundingClientRect();
return {tag: e.tagName, cls: e.className, id: e.id, text: e.textContent.trim().slice(0, 60),
        outline: s.outlineStyle, width: parseFloat(s.outlineWidth), colour: s.outlineColor,
        left: r.left, top: r.top, right: r.right, bottom: r.bottom,
        matches: e.matches(':focus-visible')};
"""


def test_skip_link_and_visible_focus(page):
    from selenium.webdriver.common.keys import Keys
    driver = page(LEADERBOARD)
    press(driver, Keys.TAB)
    focus = driver.execute_script(FOCUS)
    assert focus["cls"] == "skip-link" and focus["text"] == "Skip to the content"
    assert focus["left"] >= 0 and focus["top"] >= 0 and focus["right"] <= DESKTOP[0], "skip link off screen"
    assert focus["outline"] == "solid" and focus["width"] >= 2, focus
    press(driver, Keys.ENTER)
    assert driver.current_url.endswith("#main")
    assert driver.execute_script(FOCUS)["id"] == "main"
    # the next Tab stop after the skip target is inside main, with a visible outline
    press(driver, Keys.TAB)
    focus = driver.execute_script(FOCUS)
    assert driver.execute_script("return document.querySelector('main').contains(document.activeElement)")
    assert focus["outline"] == "solid" and focus["width"] >= 2 and focus["matches"], focus
    # every Tab stop on the page shows an outline (links, sort buttons, scrolling regions)
    load(driver, driver.current_url.split("#")[0])
    seen, unstyled = set(), []
    for _ in range(60):
        press(driver, Keys.TAB)
        focus = driver.execute_script(FOCUS)
        key = (focus["tag"], focus["cls"], focus["text"], focus["top"])
        if key in seen:
            break
        seen.add(key)
        if focus["outline"] in ("none", "") or focus["width"] < 2:
            unstyled.append(focus)
    assert len(seen) > 10 and not unstyled, unstyled[:5]


# --- head-to-head picker --------------------------------------------------------------------


def test_head_to_head_picker_needs_javascript_and_opens_a_prerendered_pair(page, driver, site):
    from selenium.webdriver.support.select import Select
    index = "compare/taskB/batch1/phaseA/index.html"
    driver.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": True})
    try:
        page(index)
        assert not by_css(driver, "form.picker").is_displayed(), "the picker shows without JavaScript"
        assert not all_by_css(driver, "button.sort")
        assert all_by_css(driver, "main ul.columns a"), "the pre-computed pairs are listed without JS"
    finally:
        driver.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": False})
    page(index)
    form = by_css(driver, "form.picker")
    assert form.is_displayed()
    pairs = [p.split(" ")[:2] for p in form.get_attribute("data-pairs").split(",")]  # A B page
    first, second = pairs[0]
    message = by_css(driver, ".picker-message")
    Select(by_css(driver, "#pick-a")).select_by_value(first)
    Select(by_css(driver, "#pick-b")).select_by_value(first)
    by_css(driver, "form.picker button[type=submit]").click()
    assert message.text == "Pick two different systems."
    # the reverse order opens the same pre-rendered page
    Select(by_css(driver, "#pick-a")).select_by_value(second)
    Select(by_css(driver, "#pick-b")).select_by_value(first)
    by_css(driver, "form.picker button[type=submit]").click()
    expected = f"{first.replace('/', '.')}__{second.replace('/', '.')}.html"
    assert driver.current_url.endswith("/compare/taskB/batch1/phaseA/" + expected)
    assert (site / "compare/taskB/batch1/phaseA" / expected).is_file()
    assert by_css(driver, "h1").text.startswith("Head to head:")
    assert not severe(driver.get_log("browser"))
    # a pair with no page says so instead of opening a missing file
    page(index)
    systems = [o.get_attribute("value") for o in all_by_css(driver, "#pick-a option")]
    listed = {tuple(p) for p in pairs} | {tuple(reversed(p)) for p in pairs}
    missing = next(((a, b) for a in systems for b in systems if a != b and (a, b) not in listed), None)
    if missing:
        Select(by_css(driver, "#pick-a")).select_by_value(missing[0])
        Select(by_css(driver, "#pick-b")).select_by_value(missing[1])
        by_css(driver, "form.picker button[type=submit]").click()
        assert driver.current_url.endswith(index)
        assert "no pre-computed page" in by_css(driver, ".picker-message").text


# --- Phase A+ ------------------------------------------------------------------------------

def test_phase_a_plus_board_and_the_gold_evidence_comparison(page, driver, site):
    """The Phase A+ leaderboard ranks its own runs; a system page links the comparison of
    its Phase A+ and Phase B runs, which shows each measure and question both ways."""
    page("taskB/batch1/phaseAplus.html")
    assert "Phase A+" in by_css(driver, "h1").text
    ranked = [row.text for row in all_by_css(driver, "main table tbody tr")]
    assert ranked and not any("quokka" in text.lower() for text in ranked)  # no Phase A+ run of quokka
    page("teams/helix/helix-dense.html")
    section = by_css(driver, "main").text
    assert "Without and with the gold evidence" in section
    link = next(a for a in all_by_css(driver, "main a") if a.text == "every measure and question")
    link.click()
    assert driver.current_url.endswith("/compare/taskB/batch1/phaseAplus-vs-phaseB/helix.helix-dense.html")
    headers = [th.text for th in all_by_css(driver, "main table thead th")]
    assert {"Phase A+", "Phase B", "With - without"} <= set(headers), headers
    rows = all_by_css(driver, "main section:nth-of-type(2) table tbody tr")
    assert len(rows) >= 10  # one row per question answered in both runs
    page("runs/taskB/batch1/phaseAplus/helix/helix-dense.html")
    evidence = next(a for a in all_by_css(driver, "main dl a") if "without (Phase A+)" in a.text)
    assert evidence.get_attribute("href").endswith("phaseAplus-vs-phaseB/helix.helix-dense.html")


# --- drill-down: the answers behind the numbers -----------------------------------------------

PHASE_A_RUN = "runs/taskB/batch1/phaseA/helix/helix-dense.html"
PHASE_B_RUN = "runs/taskB/batch1/phaseB/helix/helix-dense.html"
HIGHLIGHT = """
const mark = arguments[0], box = mark.getBoundingClientRect(), parent = mark.parentElement;
return {width: box.width, height: box.height, text: mark.textContent,
        mark: getComputedStyle(mark).backgroundColor, around: getComputedStyle(parent).backgroundColor};
"""


def test_a_drill_down_shows_the_body_a_highlighted_snippet_overlap_and_a_matched_synonym(page, driver):
    page(PHASE_A_RUN)
    questions = all_by_css(driver, "section.answers details.answer")
    assert len(questions) > 5
    first = questions[0]
    assert first.get_attribute("open") is not None and questions[1].get_attribute("open") is None  # lazy: one open
    assert "Which genes are associated with Brennan-Oakes disease?" in by_css(first, "summary").text
    mark = by_css(first, "p.sn mark")
    shown = driver.execute_script(HIGHLIGHT, mark)
    assert shown["width"] > 0 and shown["height"] > 0 and shown["text"].strip(), shown
    assert shown["mark"] != shown["around"], shown  # the overlap stands out from the snippet around it
    closed = by_css(questions[1], "p.sn mark")
    assert not closed.is_displayed()
    by_css(questions[1], "summary").click()
    assert closed.is_displayed()

    page(PHASE_B_RUN)
    first = by_css(driver, "section.answers details.answer")
    assert "Which genes are associated with Brennan-Oakes disease?" in by_css(first, "summary").text
    synonyms = [q.text for q in all_by_css(first, "q.synonym")]
    assert "FARB7" in synonyms, synonyms
    assert all(q.is_displayed() for q in all_by_css(first, "q.synonym"))


def test_head_to_head_shows_both_answers_side_by_side(page, driver):
    page("compare/taskB/batch1/phaseB/index.html")
    link = all_by_css(driver, "main ul.columns a")[0]
    link.click()
    first = by_css(driver, "section.answers details.answer")
    sides = all_by_css(first, ".side-by-side > .side")
    assert len(sides) == 2
    left, right = (s.rect for s in sides)
    assert left["x"] + left["width"] <= right["x"] + 1 and abs(left["y"] - right["y"]) < 2  # beside each other

# --- compact leaderboards ------------------------------------------------------------------

def leaderboards(site) -> list[str]:
    """Every leaderboard and overview page of the built demo."""
    found = [p for pattern in ("taskB/*/*.html", "taskA/*.html", "taskA/*/*.html", "mcqa/*/*.html",
                               "synergy/*/*.html", "overview/*.html")
             for p in sorted(x.relative_to(site).as_posix() for x in site.glob(pattern))]
    return [p for p in found if not p.endswith("-rules.html")]  # -preliminary.html: a board too (kept results)


MAIN_TABLES = """
const wraps = [...document.querySelectorAll('main .table-wrap')].filter(w => !w.closest('details'));
return {page: [document.documentElement.scrollWidth, document.documentElement.clientWidth],
        wraps: wraps.map(w => {
          const box = w.getBoundingClientRect();
          const first = w.querySelector('thead th'), ranked = w.querySelector('thead th.official');
          return {id: w.querySelector('table').id, scroll: w.scrollWidth, client: w.clientWidth, right: box.right,
                  first: first ? first.getBoundingClientRect().right : null,
                  ranked: ranked ? ranked.getBoundingClientRect().right : null};
        })};
"""


def test_no_leaderboard_scrolls_sideways_at_1280px(crawled, site):
    problems = []
    for path in leaderboards(site):
        facts = crawled.read(path, "MAIN_TABLES")
        if facts["page"][0] > facts["page"][1]:
            problems.append(f"{path}: the page scrolls sideways {facts['page']}")
        problems += [f"{path}: table {w['id']} scrolls ({w['scroll']} > {w['client']})"
                     for w in facts["wraps"] if w["scroll"] > w["client"] + 1]
    assert len(leaderboards(site)) > 25 and not problems, "\n".join(problems)


def test_the_rank_and_the_ranked_measure_stay_in_view_at_390px(crawled_narrow, site):
    problems = []
    for path in leaderboards(site):
        for w in crawled_narrow.read(path, "MAIN_TABLES")["wraps"]:
            for what in ("first", "ranked"):
                if w[what] is not None and w[what] > w["right"] + 1:
                    problems.append(f"{path}: the {what} column of {w['id']} ends at {w[what]:.0f} px, "
                                    f"outside its box ({w['right']:.0f} px)")
    assert not problems, "\n".join(problems)


def test_the_other_measures_unfold_with_and_without_javascript(page, driver):
    for script_disabled in (True, False):
        driver.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": script_disabled})
        try:
            page(PHASE_A)
            folded = all_by_css(driver, "main details.more")
            assert [d.find_element("css selector", "summary").text for d in folded][:2] == [
                "Every concept measure", "Every document measure"]
            table = folded[1].find_element("css selector", "table")
            assert not table.is_displayed()
            folded[1].find_element("css selector", "summary").click()
            assert table.is_displayed() and folded[1].get_attribute("open") is not None
            headers = [th.text for th in table.find_elements("css selector", "thead th")]
            assert any(h.startswith("Documents GMAP") for h in headers), headers
            bars = all_by_css(driver, "main section > .table-wrap td.official .bar")
            assert bars and all(b.size["width"] <= b.find_element("xpath", "..").size["width"] for b in bars)
        finally:
            driver.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": False})


#: A run of the demo's assessed batch (batch 2 Phase A, docs/assessment.md).
ASSESSED_RUN = "runs/taskB/batch2/phaseA/quokka/quokka-1.html"


def test_an_assessed_run_lists_what_the_assessment_added_within_1280px(page, driver):
    """The run page of a final board lists the run's items the experts accepted and the
    values they changed, and nothing of it is wider than the page."""
    page(ASSESSED_RUN)
    section = by_css(driver, "section.assessed")
    captions = [c.text for c in all_by_css(section, "caption")]
    assert captions[0].startswith("This run's items the assessment made relevant or correct"), captions
    kinds = {row.find_elements("css selector", "td")[0].text for row in all_by_css(section, "table")[0]
             .find_elements("css selector", "tbody tr")}
    assert kinds <= {"document", "snippet"} and kinds, kinds
    facts = driver.execute_script(MAIN_TABLES)
    assert facts["page"][0] <= facts["page"][1], facts["page"]
    assert all(w["scroll"] <= w["client"] + 1 for w in facts["wraps"]), facts["wraps"]


# --- narrow viewport ------------------------------------------------------------------------

NARROW = """
const doc = document.documentElement;
return {
  page: [doc.scrollWidth, doc.clientWidth],
  wraps: Array.from(document.querySelectorAll('.table-wrap'), w => {
    const before = w.scrollLeft; w.scrollLeft = 80; const moved = w.scrollLeft; w.scrollLeft = before;
    return {id: (w.querySelector('table') || {}).id || '', scroll: w.scrollWidth, client: w.clientWidth,
            overflow: getComputedStyle(w).overflowX, moved: moved,
            right: w.getBoundingClientRect().right};
  }),
  wide: Array.from(document.querySelectorAll('main *'))
    .filter(e => !e.closest('.table-wrap') && e.getBoundingClientRect().right > doc.clientWidth + 1
                 && getComputedStyle(e).position !== 'absolute')
    .map(e => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right))
    .slice(0, 5),
};
"""
NARROW_PAGES = ("index.html", LEADERBOARD, PHASE_A, "taskA/batch1.html", "overview/taskB.html",
                "teams.html", TEAM_WITH_MARKUP, "teams/medqa-friends/medqa-gen.html",
                "runs/taskA/batch1/week1/northbridge/nb-hier.html", "compare/taskB/batch1/phaseA/index.html",
                "downloads.html", "docs/measures.html", "docs/submit.html")


def test_wide_tables_scroll_in_their_box_at_390px(page, driver):
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", NARROW_VIEW)
    problems = []
    for path in NARROW_PAGES:
        page(path)
        facts = driver.execute_script(NARROW)
        if facts["page"][0] > facts["page"][1]:
            problems.append(f"{path}: the page scrolls sideways ({facts['page']}): {facts['wide']}")
        for w in facts["wraps"]:
            if w["right"] > 391:
                problems.append(f"{path}: table box {w['id']} is wider than the screen ({w['right']})")
            if w["scroll"] > w["client"] and (w["overflow"] != "auto" or w["moved"] <= 0):
                problems.append(f"{path}: table {w['id']} does not scroll ({w})")
    page(LEADERBOARD)
    facts = driver.execute_script(NARROW)
    assert any(w["scroll"] > w["client"] and w["moved"] > 0 for w in facts["wraps"]), \
        "a leaderboard at 390 px should have a table that scrolls inside its box"
    assert not problems, "\n".join(problems)


CHART_TEXT = """
const width = document.documentElement.clientWidth, out = [];
if (document.documentElement.scrollWidth > width) out.push('the page scrolls sideways');
for (const svg of document.querySelectorAll('.chart svg')) {
  const box = svg.getBoundingClientRect(), wrap = svg.closest('.chart-scroll');
  const scroller = wrap.getBoundingClientRect(), style = getComputedStyle(wrap);
  if (Math.abs(box.width - svg.width.baseVal.value) > 0.5) out.push('shrunk to ' + Math.round(box.width) + ' px');
  if (scroller.right > width + 0.5) out.push('scroll box ends at ' + Math.round(scroller.right));
  if (wrap.scrollWidth > wrap.clientWidth && style.overflowX !== 'auto') out.push('wider than its box, no scroll');
  for (const t of svg.querySelectorAll('text')) {
    const r = t.getBoundingClientRect();
    if (r.left < box.left - 0.5 || r.right > box.right + 0.5 || r.top < box.top - 0.5 || r.bottom > box.bottom + 0.5)
      out.push(t.textContent + ' [' + Math.round(r.left) + ', ' + Math.round(r.right) + '] outside [' +
               Math.round(box.left) + ', ' + Math.round(box.right) + ']');
    if (parseFloat(getComputedStyle(t).fontSize) < 12) out.push(t.textContent + ': font below 12 px');
  }
}
return out;
"""
CHART_PAGES = ("overview/taskB.html", "overview/taskA.html", "overview/mcqa.html", "teams/medqa-friends/medqa-gen.html")


@pytest.mark.parametrize("width", [DESKTOP[0], 390])
def test_chart_labels_are_not_cut_off(page, driver, long_name_site, width):
    """Every text inside its chart, at full size (a narrow screen scrolls the chart in its box,
    never the page), on the demo and with a long system name in the diagrams."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": width < 600})
    cut = []
    for path in CHART_PAGES:
        page(path)
        assert all_by_css(driver, ".chart svg text"), path
        cut += [f"{path}: {t}" for t in driver.execute_script(CHART_TEXT)]
    for path in ("overview/taskB.html", "overview/mcqa.html"):
        load(driver, (long_name_site / path).as_uri())
        assert any(LONG_NAME in t.get_attribute("textContent") for t in all_by_css(driver, ".chart svg text")), path
        cut += [f"long name, {path}: {t}" for t in driver.execute_script(CHART_TEXT)]
    assert not cut, cut


# --- footer ----------------------------------------------------------------------------------


def test_footer_details_opens_and_closes(page):
    from selenium.webdriver.common.keys import Keys
    driver = page(LEADERBOARD)
    details = by_css(driver, ".site-footer details")
    summary = details.find_element("css selector", "summary")
    hashes = details.find_element("css selector", "ul.hashes")
    assert details.get_attribute("open") is None and not hashes.is_displayed()
    driver.execute_script("arguments[0].scrollIntoView()", summary)
    summary.click()
    assert details.get_attribute("open") is not None and hashes.is_displayed()
    assert len(hashes.find_elements("css selector", "code.hash")) >= 1
    summary.send_keys(Keys.ENTER)  # the keyboard closes it again
    assert details.get_attribute("open") is None and not hashes.is_displayed()


# --- navigation: file:// and a served sub-path ------------------------------------------------


def _click_through(driver, start: str):
    """Home -> Teams -> a team -> a system -> a run -> its leaderboard -> Docs -> home."""
    def click(selector):
        target = by_css(driver, selector)
        href = target.get_attribute("href")
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", target)
        target.click()
        assert driver.current_url == href, (driver.current_url, href)
        assert not severe(driver.get_log("browser")), driver.current_url
        return driver.current_url

    load(driver, start + "index.html")
    assert by_css(driver, "h1").text
    visited = [click("nav a[href$='teams.html']")]
    visited.append(click("a[href='teams/medqa-friends.html']"))
    assert by_css(driver, "h1").text == TEAM_NAME
    visited.append(click(".system-card h3 a"))
    visited.append(click("main table a[href*='runs/']"))
    visited.append(click("dd a[href$='.html']"))  # the run's leaderboard
    assert all_by_css(driver, "table.sortable button.sort")
    visited.append(click("nav a[href$='docs/index.html']"))
    visited.append(click(".site-name a"))
    assert driver.current_url == start + "index.html"
    assert all(u.startswith(start) for u in visited), visited
    return visited


def test_navigation_from_file_url(page, driver, site):
    page("index.html")
    _click_through(driver, site.as_uri() + "/")


@pytest.fixture
def served(site, tmp_path):
    """The site under /some/sub-path/ of ``python -m http.server`` on a free loopback port."""
    root = tmp_path / "www"
    (root / "bioasq").mkdir(parents=True)
    (root / "bioasq" / "leaderboard").symlink_to(site, target_is_directory=True)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1",
                               "--directory", str(root)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"python -m http.server did not start on port {port}")
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/bioasq/leaderboard/"
    finally:
        server.terminate()
        try:
            server.wait(timeout=5)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(timeout=5)


def test_navigation_from_a_served_sub_path(page, driver, served):
    page("index.html")
    visited = _click_through(driver, served)
    # every link of the pages visited resolves over HTTP, inside the sub-path
    checked, broken = set(), []
    for url in visited:
        load(driver, url)
        for link in driver.execute_script(PAGE_FACTS)["links"]:
            target = link.split("#")[0]
            if not target.startswith("http://127.0.0.1") or target in checked:
                continue
            checked.add(target)
            if not target.startswith(served):
                broken.append(f"{url}: leaves the sub-path: {link}")
                continue
            try:
                with urllib.request.urlopen(urllib.request.Request(target, method="HEAD"), timeout=5) as r:
                    assert r.status == 200
            except (urllib.error.URLError, AssertionError) as err:
                broken.append(f"{url}: {link}: {err}")
        assert not severe(driver.get_log("browser")), url
    assert len(checked) > 20 and not broken, broken[:10]


# --- colour contrast --------------------------------------------------------------------------

CONTRAST = """
function parse(c) {
  const m = c.match(/rgba?\\(([^)]+)\\)/);
  if (!m) return null;
  const p = m[1].split(/[ ,\\/]+/).filter(Boolean).map(parseFloat);
  return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
}
function lum(c) {
  const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
  return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]);
}
function ratio(a, b) { const x = lum(a), y = lum(b); return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); }
function over(top, bottom) {  // alpha compositing of top over an opaque bottom
  const a = top[3];
  return [0, 1, 2].map(i => top[i] * a + bottom[i] * (1 - a)).concat([1]);
}
function background(e) {
  const layers = [];
  for (let n = e; n; n = n.parentElement) {
    const c = parse(getComputedStyle(n).backgroundColor);
    if (c && c[3] > 0) { layers.push(c); if (c[3] >= 1) break; }
  }
  let bg = [255, 255, 255, 1];
  for (let i = layers.length - 1; i >= 0; i--) bg = over(layers[i], bg);
  return bg;
}
const out = [];
for (const e of document.querySelectorAll('body *')) {
  if (!Array.from(e.childNodes).some(n => n.nodeType === 3 && n.textContent.trim())) continue;
  if (e.closest('.visually-hidden, .skip-link, script, style, title, desc')) continue;
  if (!e.getClientRects().length) continue;
  const s = getComputedStyle(e);
  if (s.visibility === 'hidden') continue;
  const svg = e instanceof SVGElement;
  const fg = parse(svg ? s.fill : s.color);
  if (!fg) continue;
  const bg = background(svg ? e.closest('figure') : e);
  const size = parseFloat(s.fontSize), bold = parseInt(s.fontWeight) >= 700;
  const large = size >= 24 || (bold && size >= 18.66);
  const r = ratio(over(fg, bg), bg);
  out.push({el: e.tagName.toLowerCase() + (e.className && e.className.baseVal === undefined && e.className ?
            '.' + e.className.split(' ').join('.') : ''),
            text: e.textContent.trim().slice(0, 40), ratio: Math.round(r * 100) / 100,
            need: large ? 3 : 4.5, fg: s.color, bg: 'rgb(' + bg.slice(0, 3).join(',') + ')'});
}
return out;
"""
CONTRAST_PAGES = ("index.html", LEADERBOARD, PHASE_A, "taskA/batch1/week1.html", "overview/taskA.html",
                  TEAM_WITH_MARKUP, "teams/medqa-friends/medqa-gen.html",
                  "runs/taskB/batch2/phaseB/quokka/quokka-1.html",
                  "compare/taskB/batch1/phaseA/index.html", "docs/measures.html", "downloads.html")


def test_text_contrast_meets_wcag_aa(page, driver):
    """Every visible text on the main page types, with the highlight rows and the footer open."""
    failures, kinds = [], set()
    for path in CONTRAST_PAGES:
        page(path)
        driver.execute_script("document.querySelectorAll('details').forEach(d => d.open = true)")
        for item in driver.execute_script(CONTRAST):
            kinds.add(item["bg"])
            if item["ratio"] < item["need"]:
                failures.append(f"{path}: {item}")
    # the row and column highlights (official, baseline, late), panels and the banner were seen
    assert len(kinds) >= 5, kinds
    assert not failures, "\n".join(failures[:20])


HIGHLIGHTS = """
const probe = document.createElement('table');
probe.className = 'data';
probe.innerHTML = '<tbody><tr class="baseline"><td>x</td></tr><tr class="late"><td>x</td></tr>' +
                  '<tr><td class="official">x</td></tr></tbody>';
document.querySelector('main').appendChild(probe);
const cells = probe.querySelectorAll('td');
const bgs = Array.from(cells, c => getComputedStyle(c).backgroundColor);
const text = getComputedStyle(cells[0]).color;
const link = getComputedStyle(document.querySelector('main a')).color;
const status = {};
for (const v of ['open', 'closed', 'upcoming', 'scored']) {  // the demo shows only "scored"
  const span = document.createElement('span');
  span.className = 'status status-' + v;
  probe.querySelector('td').appendChild(span);
  status[v] = getComputedStyle(span).color;
}
const focus = getComputedStyle(document.documentElement).getPropertyValue('--focus').trim();
const panel = getComputedStyle(document.querySelector('.site-header')).backgroundColor;
probe.remove();
return {bgs: bgs.concat([panel, getComputedStyle(document.documentElement).backgroundColor]),
        text: text, link: link, focus: focus, status: status};
"""


def _rgb(text: str) -> tuple[float, ...]:
    text = text.strip()
    if text.startswith("#"):
        return tuple(int(text[i:i + 2], 16) for i in (1, 3, 5))
    inner = text[text.index("(") + 1:text.index(")")].replace(",", " ").split()
    return tuple(float(v) for v in inner[:3])


def _contrast(a, b) -> float:
    def lum(c):
        ch = [(v / 255) / 12.92 if v / 255 <= 0.03928 else ((v / 255 + 0.055) / 1.055) ** 2.4 for v in c]
        return 0.2126 * ch[0] + 0.7152 * ch[1] + 0.0722 * ch[2]
    x, y = sorted((lum(a), lum(b)), reverse=True)
    return (x + 0.05) / (y + 0.05)


def test_highlight_colours_keep_text_and_links_readable(page, driver):
    """Text and links on the official, baseline and late highlights and the panel: 4.5:1;
    the focus outline against every background: 3:1 (WCAG 1.4.11)."""
    page(LEADERBOARD)
    colours = driver.execute_script(HIGHLIGHTS)
    backgrounds = colours["bgs"]  # baseline, late, official, panel, page
    assert len(set(backgrounds)) == 5 and not any(b.startswith("rgba") for b in backgrounds), colours
    low = []
    for bg in backgrounds:
        for name, min_ratio in (("text", 4.5), ("link", 4.5), ("focus", 3.0)):
            r = _contrast(_rgb(colours[name]), _rgb(bg))
            if r < min_ratio:
                low.append(f"{name} {colours[name]} on {bg}: {r:.2f} < {min_ratio}")
    for value, colour in colours["status"].items():  # window status words, on white and the panel
        for bg in backgrounds[-2:]:
            r = _contrast(_rgb(colour), _rgb(bg))
            if r < 4.5:
                low.append(f"status {value} {colour} on {bg}: {r:.2f} < 4.5")
    assert not low, low


# --- screenshots for review -------------------------------------------------------------------


def _shoot(driver, name: str, width: int, full: bool = True) -> Path:
    """The page at ``width`` and its full height (at most 6,000 px) as a PNG, encoded for
    speed rather than size (the same pixels)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / name
    height = driver.execute_script("return document.documentElement.scrollHeight") if full else 900
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": min(int(height), 6000), "deviceScaleFactor": 1,
                            "mobile": width < 600})
    shot = driver.execute_cdp_cmd("Page.captureScreenshot", {"format": "png", "optimizeForSpeed": True})
    path.write_bytes(base64.b64decode(shot["data"]))
    return path


#: One page of every kind the site has (name -> path): each is shot at 1,280 and 390 px.
PAGE_KINDS = {
    "home": "index.html",
    "board-taskB-phaseA": PHASE_A,
    "board-taskB-phaseAplus": "taskB/batch1/phaseAplus.html",
    "board-taskB-phaseB": LEADERBOARD,
    "board-taskA-batch": "taskA/batch1.html",
    "board-taskA-testset": "taskA/batch1/week1.html",
    "board-mcqa": "mcqa/batch1/run.html",
    "board-synergy": "synergy/round2/run.html",
    "board-filtered-open": "taskB/batch1/phaseB.open.html",
    "board-filtered-primary": "taskA/batch1.primary.html",
    "rules": "taskB/batch2/phaseB-rules.html",
    "board-preliminary": "taskB/batch2/phaseA-preliminary.html",
    "overview-taskB": "overview/taskB.html",
    "overview-taskA": "overview/taskA.html",
    "teams": "teams.html",
    "team": TEAM_WITH_MARKUP,
    "system": "teams/helix/helix-dense.html",
    "run-phaseA": PHASE_A_RUN,
    "run-phaseB": PHASE_B_RUN,
    "run-assessed": ASSESSED_RUN,
    "run-taskA": "runs/taskA/batch1/week1/northbridge/nb-hier.html",
    "run-mcqa": "runs/mcqa/batch1/run/helix/helix-dense.html",
    "run-synergy": "runs/synergy/round1/run/helix/helix-dense.html",
    "compare-index": "compare/taskB/batch1/phaseB/index.html",
    "compare-pair": "compare/taskB/batch1/phaseB/helix.helix-dense__helix.helix-hybrid.html",
    "evidence": "compare/taskB/batch1/phaseAplus-vs-phaseB/helix.helix-dense.html",
    "downloads": "downloads.html",
    "docs-index": "docs/index.html",
    "doc": "docs/submit.html",
}


def test_screenshots_of_every_page_kind_at_1280_and_390px(page, driver, site, capsys):
    """Written to test-artifacts/screenshots/<kind>-<width>.png (ignored by Git) for a person
    to look at; the pages themselves are checked by the other tests."""
    saved = []
    for kind, path in PAGE_KINDS.items():
        assert (site / path).is_file(), path
        for width in (DESKTOP[0], 390):
            driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                   {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": width < 600})
            page(path)
            saved.append(_shoot(driver, f"{kind}-{width}.png", width))
            driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    for p in saved:
        assert p.stat().st_size > 10_000, f"{p} looks empty"
    with capsys.disabled():
        print(f"\n{len(saved)} screenshots for review in {SCREENSHOTS.relative_to(ROOT)}")


# --- the star marks what the ranking used ---------------------------------------------------

BOARD_TABLES = """
return Array.from(document.querySelectorAll('table.sortable'), t => ({
  note: (t.querySelector('caption .note') || {textContent: ''}).textContent,
  heads: Array.from(t.querySelectorAll('thead th'), th => ({
    label: th.childNodes[0].textContent.trim(), title: th.title || '',
    starred: !!th.querySelector('.star')})),
  rows: Array.from(t.querySelectorAll('tbody tr'), tr => Array.from(tr.children, td => ({
    text: td.dataset.sort !== undefined ? td.dataset.sort : td.textContent.trim(),
    highlighted: td.classList.contains('official')}))),
}));
"""


def _number(text: str) -> float | None:
    return None if text in ("", "-") else float(text)


def _follows(ranks: list[float | None], values: list[float | None]) -> bool:
    """Whether, among the ranked rows, a better (lower) rank always has a higher value (a
    missing value is lowest) and equal ranks have equal values."""
    pairs = [(r, v) for r, v in zip(ranks, values) if r is not None]
    for r1, v1 in pairs:
        for r2, v2 in pairs:
            if r1 < r2 and not (v1 is not None and (v2 is None or v1 > v2)):
                return False
            if r1 == r2 and v1 != v2:
                return False
    return True


def _star_problems(table: dict) -> list[str]:
    """Where the ranks of a leaderboard table do not follow its starred column (one star),
    or the table does not say the average-rank rule (several stars); highlighted cells
    outside starred columns."""
    heads = table["heads"]
    starred = [i for i, h in enumerate(heads) if h["starred"]]
    wrong = [f"highlighted {heads[i]['label']}" for row in table["rows"] for i, cell in enumerate(row)
             if cell["highlighted"] and i not in starred]
    column = {h["label"]: i for i, h in enumerate(heads)}
    for i, head in enumerate(heads):  # "Rank" (the ranking), "Rank <X>" on a Task A test set
        if not head["label"].startswith("Rank"):
            continue
        ranks = [_number(row[i]["text"]) for row in table["rows"]]
        follows = [j for j in starred if head["title"].endswith(f"by {heads[j]['title']}")] or starred
        if "Avg. rank" in column and len(follows) > 1:
            if "mean of" not in table["note"]:
                wrong.append(f"{len(follows)} stars, and the rule does not say it averages ranks")
            averages = [_number(row[column["Avg. rank"]]["text"]) for row in table["rows"]]
            if not _follows(ranks, [-a if a is not None else None for a in averages]):
                wrong.append("the ranks do not follow the average ranks")
        elif len(follows) == 1:
            values = [_number(row[follows[0]]["text"]) for row in table["rows"]]
            if not _follows(ranks, values):
                wrong.append(f"{head['label']} does not follow the starred {heads[follows[0]]['label']}")
    return wrong


def test_every_leaderboard_ranks_by_its_starred_column(crawled, site):
    from scorer.core.tasks import TASKS
    boards = sorted(p.relative_to(site).as_posix() for task in TASKS if (site / task).is_dir()
                    for p in (site / task).rglob("*.html") if "compare" not in p.parts and "runs" not in p.parts)
    checked = {"one star": 0, "average rank": 0}
    problems = {}
    for board in boards:
        for table in crawled.read(board, "BOARD_TABLES"):
            if not any(h["label"].startswith("Rank") for h in table["heads"]):
                continue
            stars = sum(h["starred"] for h in table["heads"])
            checked["one star" if stars == 1 else "average rank"] += 1
            if _star_problems(table):
                problems[board] = _star_problems(table)
    assert problems == {}
    assert checked["one star"] >= 3 and checked["average rank"] >= 3, checked
    # batch 1 has expert scores: its ideal answers are ranked on them, starred, not ROUGE
    ideal = next(t for t in crawled.read("taskB/batch1/phaseB.html", "BOARD_TABLES")
                 if "expert scores" in t["note"])
    assert {h["title"] for h in ideal["heads"] if h["starred"]} == {
        "ideal.manual.recall", "ideal.manual.precision", "ideal.manual.repetition", "ideal.manual.readability"}


def test_the_star_check_catches_a_board_that_does_not_follow_its_star():
    def table(ranks, values):
        return {"note": "", "heads": [{"label": "Rank", "title": "", "starred": False},
                                      {"label": "F1", "title": "f1", "starred": True}],
                "rows": [[{"text": r, "highlighted": False}, {"text": v, "highlighted": True}]
                         for r, v in zip(ranks, values)]}
    assert _star_problems(table(["1", "2", "-"], ["0.5", "0.4", "0.9"])) == []
    assert _star_problems(table(["1.5", "1.5", "3"], ["0.5", "0.5", "0.4"])) == []
    assert _star_problems(table(["1", "2"], ["0.4", "0.5"])) == ["Rank does not follow the starred F1"]


# --- scores first, widths, scroll cues, run cards, the overview order (issue 28) ------------

RANKED_VALUES = """
return [...document.querySelectorAll('main table.sortable')].filter(t => !t.closest('details')).map(t => {
  const heads = [...t.querySelectorAll('thead th')];
  const starred = heads.map((h, i) => h.querySelector('.star') ? i : -1).filter(i => i >= 0);
  return {id: t.id, starred: starred.length, first: heads.findIndex(h => h.textContent.trim().startsWith('Rank')),
          rows: [...t.querySelectorAll('tbody tr')].map(tr => {
            const cells = [...tr.children];
            return {ranked: (cells[0].dataset.sort || '') !== '',
                    values: starred.map(i => cells[i] ? cells[i].textContent.trim() : '')};
          })};
});
"""
BOARD_KINDS = {"Task B Phase A": PHASE_A, "Task B Phase A+": "taskB/batch1/phaseAplus.html",
               "Task B Phase B": LEADERBOARD, "Task A batch": "taskA/batch1.html",
               "Task A test set": "taskA/batch1/week1.html", "reading tests": "mcqa/batch1/run.html",
               "Synergy": "synergy/round2/run.html"}


def test_each_board_kind_shows_the_values_it_ranks_on(crawled):
    """Every main table of every kind of board has starred (ranked-on) columns, and every
    ranked row shows a score (4 decimals) in at least one of them; the Task A batch board has
    one per test set."""
    problems = []
    for kind, path in BOARD_KINDS.items():
        tables = crawled.read(path, "RANKED_VALUES")
        assert tables, (kind, path)
        for t in tables:
            ranked = [r for r in t["rows"] if r["ranked"]]
            if not t["starred"]:
                problems.append(f"{kind}: {t['id']} has no ranked-on column")
            for row in ranked:
                if not any(re.fullmatch(r"\d\.\d{4}", v) for v in row["values"]):
                    problems.append(f"{kind}: {t['id']}: a ranked row shows no score {row['values']}")
            if not ranked:
                problems.append(f"{kind}: {t['id']} ranks no one")
    task_a = crawled.read("taskA/batch1.html", "RANKED_VALUES")
    assert all(t["starred"] == 5 for t in task_a), [t["starred"] for t in task_a]  # week1..week5
    assert not problems, "\n".join(problems)


WIDTHS = """
const doc = document.documentElement, out = {page: doc.scrollWidth, wraps: []};
for (const w of document.querySelectorAll('main .table-wrap')) {
  if (!w.clientWidth) continue;  // inside a closed <details>
  const cue = w.previousElementSibling, caption = w.querySelector('caption .caption-text');
  out.wraps.push({id: (w.querySelector('table') || {}).id || '', scrolls: w.scrollWidth > w.clientWidth + 1,
    right: w.getBoundingClientRect().right, shadow: getComputedStyle(w).backgroundImage.includes('radial-gradient'),
    cue: !!(cue && cue.classList.contains('scroll-cue') && !cue.hidden && cue.offsetHeight > 0),
    captionRight: caption ? caption.getBoundingClientRect().right : null});
}
return out;
"""


def _width_problems(path: str, facts: dict, width: int) -> list[str]:
    """What is wrong with the ``WIDTHS`` facts of ``path`` read at a ``width`` px wide view,
    each naming the page and the view."""
    where = f"{path} at {width} px"
    problems = [f"{where}: the page is {facts['page']} px wide"] if facts["page"] > width else []
    for w in facts["wraps"]:
        if w["right"] > width + 0.5:
            problems.append(f"{where}: table {w['id']} ends at {w['right']:.0f} px")
        if w["scrolls"] and not (w["cue"] and w["shadow"]):
            problems.append(f"{where}: table {w['id']} scrolls without a visible cue ({w})")
        if w["captionRight"] is not None and w["captionRight"] > min(w["right"], width) + 0.5:
            problems.append(f"{where}: the caption of {w['id']} is cut ({w['captionRight']:.0f} px)")
    return problems


def test_no_board_or_per_question_table_is_wider_than_1280px_and_a_table_that_scrolls_says_so(
        crawled, crawled_narrow, site):
    """Every board (and filtered view), every run page (the per-question tables), every
    head-to-head page and every team and system page at 1,280 px: the page fits, and a table wider than its box shows the
    cue (the "scroll" line and the edge shadows); the boards again at 390 px, where their
    tables do scroll: the cue, and captions that wrap inside the box."""
    pages = leaderboards(site) + sorted(p.relative_to(site).as_posix() for folder in ("runs", "compare", "teams")
                                        for p in (site / folder).rglob("*.html"))  # teams: their results tables
    assert len(pages) > 250
    problems, scrolling = [], 0
    for path in pages:
        facts = crawled.read(path, "WIDTHS")
        problems += _width_problems(path, facts, DESKTOP[0])
        scrolling += sum(w["scrolls"] for w in facts["wraps"])
    narrow = 0
    for path in leaderboards(site):
        facts = crawled_narrow.read(path, "WIDTHS")
        problems += _width_problems(path, facts, NARROW_VIEW["width"])
        narrow += sum(w["scrolls"] for w in facts["wraps"])
    assert not problems, "\n".join(problems[:40])
    assert narrow > 50, narrow  # the cue was checked on many scrolling tables
    assert scrolling >= 0


def test_the_scroll_cue_check_catches_a_table_without_one():
    wrap = {"id": "t", "scrolls": True, "right": 1000, "shadow": True, "cue": False, "captionRight": 900}
    assert _width_problems("p.html", {"page": 1280, "wraps": [wrap]}, 1280) == [
        f"p.html at 1280 px: table t scrolls without a visible cue ({wrap})"]
    assert _width_problems("p.html", {"page": 1337, "wraps": []}, 1280) == [
        "p.html at 1280 px: the page is 1337 px wide"]


FILTERED_ROWS = """
return [...document.querySelectorAll('main table.sortable')].filter(t => !t.closest('details')).map(t => ({
  id: t.id, rows: [...t.querySelectorAll('tbody tr')].map(tr => {
    const system = tr.querySelector('th[scope="row"]');
    return {key: system ? system.title : '', rank: tr.children[0].dataset.sort || ''};
  })}));
"""


#: The filtered views of a board: <board>.<kind>.html.
FILTER_KINDS = ("open", "primary", "no-bioasq", "no-tools")


def test_the_filtered_views_exist_and_hold_exactly_the_matching_runs(crawled, site):
    """For every board with runs: <board>.open.html holds the rows of the systems whose card
    says open weights, <board>.primary.html those whose card names this batch primary,
    <board>.no-bioasq.html those whose card says no earlier BioASQ test set was used
    (earlier_bioasq = [], or without it external data without BioASQ gold),
    <board>.no-tools.html those whose card says neither web search nor agents, all with
    the ranks of the full board (the cards read from downloads/cards.json)."""
    cards = json.loads((site / "downloads/cards.json").read_text(encoding="utf-8"))

    def keep(kind: str, key: str, task: str, batch: str) -> bool:
        card = cards.get(key)
        if card is None:
            return False
        if kind == "open":
            return card["weights"] == "open"
        if kind == "no-bioasq":
            if card["earlier_bioasq"] is not None:
                return card["earlier_bioasq"] == []
            return card["external_data"] is not None and "bioasq-gold" not in card["external_data"]
        if kind == "no-tools":
            return card["web_search"] is False and card["agents"] is False
        return card["primary"] is True or (isinstance(card["primary"], list) and f"{task}/{batch}" in card["primary"])

    boards = [p for p in leaderboards(site) if not p.startswith("overview/")
              and not any(f".{kind}." in p for kind in FILTER_KINDS)
              and not p.endswith("-preliminary.html")]  # kept results: not filtered
    checked = dict.fromkeys(FILTER_KINDS, 0)
    problems = []
    for board in boards:
        full = crawled.read(board, "FILTERED_ROWS")
        if not any(t["rows"] for t in full):
            assert not (site / board.replace(".html", ".open.html")).exists(), board
            continue
        parts = board.removesuffix(".html").split("/")
        task, batch = parts[0], parts[1]
        for kind in FILTER_KINDS:
            shown = {t["id"]: t["rows"] for t in crawled.read(board.replace(".html", f".{kind}.html"),
                                                              "FILTERED_ROWS")}
            # a table no row of which matches is not shown (an empty-state line instead)
            for whole in full:
                expected = [r for r in whole["rows"] if not r["key"] or keep(kind, r["key"], task, batch)]
                if shown.get(whole["id"], []) != expected:
                    problems.append(f"{board} {kind} {whole['id']}: {shown.get(whole['id'])} != {expected}")
                checked[kind] += sum(1 for r in expected if r["key"])
    assert not problems, "\n".join(problems[:20])
    assert checked["open"] > 30 and checked["primary"] > 30 and checked["no-bioasq"] > 20 and checked["no-tools"] > 20, checked


OVERVIEW_ROWS = """
return [...document.querySelectorAll('main table.sortable')].map(t => {
  const heads = [...t.querySelectorAll('thead th')].map(h => h.textContent.replace(/[\\u2195\\u2191\\u2193]/g, '').trim());
  return {note: t.querySelector('caption .note').textContent, heads: heads,
          rows: [...t.querySelectorAll('tbody tr')].map(tr => [...tr.children].map(c => c.textContent.trim()))};
});
"""


def _overview_order_problems(table: dict) -> list[str]:
    """Where an overview table's rows break the rule its note states: numbered rows first
    (1, 2, ...), each ranked in all N batches, by Friedman average rank (or mean rank);
    then unnumbered rows, each ranked in fewer batches, by mean rank."""
    match = re.match(r"Order: numbered, the systems ranked in all (\d+) batches, by (Friedman average rank|mean rank)",
                     table["note"])
    if not match:
        return [f"no order rule: {table['note']!r}"]
    n, by = int(match.group(1)), match.group(2)
    column = {h: i for i, h in enumerate(table["heads"])}
    key = column["Friedman avg. rank" if by.startswith("Friedman") else "Mean rank"]
    numbered = [r for r in table["rows"] if r[0] != "-"]
    after = [r for r in table["rows"] if r[0] == "-"]
    problems = []
    if table["rows"][:len(numbered)] != numbered:
        problems.append("an unnumbered row stands among the numbered ones")
    if [r[0] for r in numbered] != [str(i) for i in range(1, len(numbered) + 1)]:
        problems.append(f"positions {[r[0] for r in numbered]}")
    if any(r[column["Batches ranked"]] != f"{n} of {n}" for r in numbered):
        problems.append("a numbered system is not ranked in every batch")
    if any(r[column["Batches ranked"]] == f"{n} of {n}" for r in after):
        problems.append("an unnumbered system is ranked in every batch")
    if "-" in [r[key] for r in numbered]:
        problems.append(f"a numbered system has no {by}")
    elif [float(r[key]) for r in numbered] != sorted(float(r[key]) for r in numbered):
        problems.append(f"numbered rows not ordered by {by}")
    means = [float(r[column["Mean rank"]]) for r in after]
    if means != sorted(means):
        problems.append("unnumbered rows not ordered by mean rank")
    return problems


def test_the_overview_order_follows_its_stated_rule(crawled, site):
    checked = 0
    for path in sorted(p.relative_to(site).as_posix() for p in (site / "overview").glob("*.html")):
        for table in crawled.read(path, "OVERVIEW_ROWS"):
            if table["rows"]:
                assert _overview_order_problems(table) == [], (path, table["note"])
                checked += 1
    assert checked >= 6
    # Task B Phase A of the demo: the BM25 baseline (3 of 3 batches, mean 3.67) is #2; Hybrid
    # BM25 + dense (mean 2, 2 batches) follows the numbered rows, unnumbered
    phase_a = crawled.read("overview/taskB.html", "OVERVIEW_ROWS")[0]
    assert [r[:2] for r in phase_a["rows"][:4]] == [["1", "Dense retrieval + reader"], ["2", "BM25 baseline"],
                                                    ["3", "Quokka first attempt"], ["-", "Hybrid BM25 + dense"]]


def test_the_overview_check_catches_an_interleaved_order():
    table = {"note": "Order: numbered, the systems ranked in all 3 batches, by Friedman average rank (ties: mean rank); ...",
             "heads": ["#", "System", "Mean rank", "Batches ranked", "Friedman avg. rank"],
             "rows": [["1", "a", "1", "3 of 3", "1"], ["2", "b", "2", "2 of 3", "-"], ["3", "c", "3.67", "3 of 3", "2"]]}
    assert "a numbered system is not ranked in every batch" in _overview_order_problems(table)


LATE_LINKS = "return [...document.querySelectorAll('main tr.late td a')].map(a => [a.textContent, a.href]);"
PLAIN_WORDS = """
return {
  legends: [...document.querySelectorAll('details.legend')].map(d => ({id: d.id, open: d.open})),
  untitled: [...document.querySelectorAll('main table.sortable thead th')].filter(th => !th.title && !th.closest('details'))
              .map(th => th.textContent.trim()),
  times: [...document.querySelectorAll('time')].map(t => [t.getAttribute('datetime'), t.textContent]),
  notes: [...document.querySelectorAll('main td')].map(td => td.textContent).filter(t => /rules\\.|rank_late_runs/.test(t)),
  title: document.title,
  links: [...document.querySelectorAll('main a')].map(a => a.textContent),
};
"""


def test_boards_speak_plain_words(crawled, site):
    """One folded legend per board, a title on every header of its main tables, readable times in
    <time datetime> (UTC), no configuration key in a note; the docs index and its pages
    without raw backticks."""
    for path in [p for p in leaderboards(site) if not p.startswith("overview/")]:
        facts = crawled.read(path, "PLAIN_WORDS")
        assert facts["legends"] == [{"id": "legend", "open": False}] or not (site / path).read_text(
            encoding="utf-8").count("<table"), (path, facts["legends"])
        assert facts["untitled"] == [], (path, facts["untitled"])
        assert facts["notes"] == [], (path, facts["notes"])
        for stamp, text in facts["times"]:
            assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", stamp) and text.endswith(" UTC"), (stamp, text)
            assert "T" not in text.replace("UTC", ""), text
    late = crawled.read("taskB/batch2/phaseB.html", "LATE_LINKS")
    assert any(text.startswith("late, not ranked") and href.endswith("docs/ranking.html#late-runs")
               for text, href in late), late
    index = crawled.read("docs/index.html", "PLAIN_WORDS")
    assert "`" not in index["title"] and not [t for t in index["links"] if "`" in t], index["links"]
    assert "results/: what score-all writes" in index["links"]
    assert "`" not in crawled.read("docs/results.html", "PLAIN_WORDS")["title"]
