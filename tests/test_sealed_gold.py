"""Private gold (``[gold] sealed``): ``import-bioasq --seal`` writes the golden file sealed
and the test sets without the gold's members; ``score-all`` with the key opens it outside
the repository and publishes the same numbers as the plain gold, and nothing of the gold
in ``results/``; a bad sealed gold is its own batch's located error.  See
``docs/organizers.md``, "Private gold"."""
from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest

from scorer.cli import main
from scorer.core.errors import ScorerError
from scorer.formats.challenge import load_challenge
from scorer.formats.sealed import DEMO_KEY_FILE, generate_key_pair, open_envelope, seal
from scorer.store import score_all
from tests.conftest import DATA, ROOT

KEY = generate_key_pair()
OTHER = generate_key_pair("someone-else")
GOLDEN = DATA / "bioasq-real" / "golden" / "11B1_golden.json"
SEALED_BATCH = "gold/taskb/batch2"


#: The kinds of gold-only strings :func:`gold_only_by_kind` collects.
GOLD_KINDS = ("ideal", "exact", "snippets", "documents")


def gold_only_by_kind(gold: dict, runs: list[dict]) -> dict[str, set[str]]:
    """Kind (:data:`GOLD_KINDS`) -> every ideal answer, exact answer, snippet text and
    gold document (PMID) of ``gold`` (a Task B golden file) that no run in ``runs``
    returned (as any kind) and no question's body (public, in the test set) holds: what
    may not appear anywhere."""
    returned = set()
    for run in runs:
        for q in run.get("questions", []):
            returned.update(*_texts(q).values())
    bodies = "\n".join(q.get("body", "") for q in gold["questions"])
    found: dict[str, set[str]] = {kind: set() for kind in GOLD_KINDS}
    for q in gold["questions"]:
        for kind, texts in _texts(q).items():
            found[kind].update(t for t in texts if t not in bodies and t not in returned)
    return found


def gold_only_strings(gold: dict, runs: list[dict]) -> set[str]:
    """Every gold-only string of :func:`gold_only_by_kind`, whatever its kind."""
    return set().union(*gold_only_by_kind(gold, runs).values())


def _texts(question: dict) -> dict[str, set[str]]:
    ideal = question.get("ideal_answer")
    found = {"ideal": [ideal] if isinstance(ideal, str) else ideal or [],
             "exact": _flat(question.get("exact_answer")),
             "snippets": [s.get("text", "") for s in question.get("snippets", []) if isinstance(s, dict)],
             "documents": [d.rstrip("/").rpartition("/")[2] for d in question.get("documents", []) if isinstance(d, str)]}
    return {kind: {t for t in texts if isinstance(t, str) and len(t) >= 4 and t.lower() not in ("yes", "no")}
            for kind, texts in found.items()}


#: One string of each kind that :func:`_with_gold_only_items` adds to a gold and no run returns.
GOLD_ONLY = {"ideal": "An ideal answer that only the sealed gold holds.", "exact": "sealedonlyzyme 7",
             "snippets": "A sentence of an abstract that only the sealed gold quotes.", "documents": "99999991"}


def _with_gold_only_items(path: Path) -> None:
    """Add :data:`GOLD_ONLY` to the first list question of the golden file at ``path`` (a
    document and a snippet of it; an exact and an ideal answer where the file has
    answers), so that every kind of gold-only string has one whatever the demo's runs return."""
    value = json.loads(path.read_text(encoding="utf-8"))
    question = next(q for q in value["questions"] if q["type"] == "list")
    url = f"http://www.ncbi.nlm.nih.gov/pubmed/{GOLD_ONLY['documents']}"
    question["documents"].append(url)
    question["snippets"].append({"document": url, "text": GOLD_ONLY["snippets"], "offsetInBeginSection": 0,
                                 "offsetInEndSection": len(GOLD_ONLY["snippets"]), "beginSection": "abstract",
                                 "endSection": "abstract"})
    if "exact_answer" in question:
        question["exact_answer"].append([GOLD_ONLY["exact"]])
        question["ideal_answer"].append(GOLD_ONLY["ideal"])
    path.write_text(json.dumps(value, indent=1), encoding="utf-8")


def _flat(value) -> list:
    if isinstance(value, list):
        return [x for v in value for x in _flat(v)]
    return [value] if isinstance(value, str) else []


def leaks(folder: Path, secrets: set[str], skip: tuple[str, ...] = ()) -> list[tuple[str, str]]:
    """(file, secret) for each gold-only string found in a file under ``folder`` (text
    as written and JSON-escaped)."""
    found = []
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder).as_posix()
        if not path.is_file() or rel.startswith(skip) or path.suffix == ".age":
            continue
        text = path.read_bytes().decode("utf-8", "replace")
        found += [(rel, s) for s in secrets if s in text or json.dumps(s)[1:-1] in text]
    return found


def _with_key(root: Path, sealed: str = '["taskB"]', testsets: str = "") -> None:
    text = (root / "challenge.toml").read_text(encoding="utf-8")
    text = re.sub(r'recipient = ".*"', f'recipient = "{KEY.recipient}"', text)
    text = text.replace("[official_measures]", f"[gold]\nsealed = {sealed}\n{testsets}\n[official_measures]", 1)
    (root / "challenge.toml").write_text(text, encoding="utf-8")


def demo_copy(root: Path, runs: tuple[str, ...]) -> Path:
    """A copy of the demo's committed files in ``root`` with only the runs under the
    folders ``runs`` (the others removed to keep a test short)."""
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    for name in files.decode().split("\0"):
        if name and (ROOT / name).is_file() and not name.startswith(("results/", "tests/", "docs/", "benchmarks/")):
            if name.startswith("submissions/") and not name.startswith(runs):
                continue
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(ROOT / name, root / name)
    return unsealed_demo(root)


def unsealed_demo(root: Path) -> Path:
    """The copy of the demo at ``root`` with its sealed batch's gold opened (plain, with the
    demo's public key) and its ``[gold]`` table left out: a challenge whose gold is all
    plain, which the tests seal as they need."""
    key = (ROOT / DEMO_KEY_FILE).read_text(encoding="utf-8")
    for path in sorted((root / "gold").rglob("*.age")):
        path.with_suffix("").write_bytes(open_envelope(path.read_bytes(), key, str(path), what="gold"))
        path.unlink()
    toml = root / "challenge.toml"
    toml.write_text(re.sub(r"\[gold\]\n(?:(?!\[).*\n)*", "", toml.read_text(encoding="utf-8")), encoding="utf-8")
    return root


@pytest.fixture
def demo(tmp_path) -> Path:
    """The demo's Task B batches 2 and 3 only, with the test's key as the challenge's
    (once :func:`_with_key` is called)."""
    return demo_copy(tmp_path / "demo", ("submissions/taskB/batch2/", "submissions/taskB/batch3/"))


def _seal_folder(root: Path, folder: str, recipient: str = KEY.recipient) -> None:
    for path in sorted((root / folder).rglob("*.json")):
        if path.name != "versions.json":
            path.with_name(path.name + ".age").write_bytes(seal(path.read_bytes(), recipient))
            path.unlink()


def _results(root: Path) -> dict[str, dict]:
    index = json.loads((root / "results" / "index.json").read_text())
    return {p: json.loads((root / e["result"]).read_text()) for p, e in index["runs"].items() if "result" in e}


def test_sealed_gold_gives_the_numbers_of_the_plain_gold_and_nothing_of_it(demo):
    _with_key(demo)
    _with_gold_only_items(demo / SEALED_BATCH / "phaseB.json")
    plain_summary = score_all(demo, jobs=2)
    assert not plain_summary.failed
    plain = _results(demo)
    gold = json.loads((demo / SEALED_BATCH / "phaseB.json").read_text())
    runs = [json.loads(p.read_text()) for p in (demo / "submissions/taskB/batch2").rglob("*.json")]
    kinds = gold_only_by_kind(gold, runs)
    assert all(GOLD_ONLY[kind] in kinds[kind] for kind in GOLD_KINDS)  # not vacuous: each kind searched for
    assert len(kinds["ideal"]) > 1  # the demo's own ideal answers, which its runs paraphrase
    secrets = gold_only_strings(gold, runs)
    _seal_folder(demo, SEALED_BATCH)
    shutil.rmtree(demo / "results")
    summary = score_all(demo, jobs=2, identity=KEY.identity)
    assert not summary.failed and not summary.awaiting_gold and summary.sealed_gold == []  # all opened
    sealed = _results(demo)
    assert sealed.keys() == plain.keys()
    for path, doc in sealed.items():
        for part in ("measures", "per_question", "variants"):
            assert doc.get(part) == plain[path].get(part), (path, part)
        assert "assessment" not in doc  # which of its items the experts added: gold membership
    assert any("assessment" in doc for doc in plain.values())  # the check above could fail
    assert leaks(demo / "results", secrets) == []
    assert [p.name for p in (demo / SEALED_BATCH).rglob("*.json")] == ["versions.json"]
    # the plain gold's digest is the provenance's; a caller without the key reuses every result
    digest = json.loads((demo / "results/sealed.json").read_text())[f"{SEALED_BATCH}/phaseB.json.age"]["opened_sha256"]
    phase_b = [doc for path, doc in plain.items() if path.startswith("submissions/taskB/batch2/phaseB/")]
    assert phase_b and all(doc["provenance"]["gold_sha256"]["gold"] == digest for doc in phase_b)
    again = score_all(demo, jobs=1)
    assert not again.scored and not again.awaiting_gold and len(again.reused) == len(sealed)
    assert again.sealed_gold == [f"{SEALED_BATCH}/{name}.json" for name in ("phaseA", "phaseB", "preliminary/phaseA")]


def _cut_after_header(data: bytes) -> bytes:
    """An age file cut 11 bytes after its header's MAC line (48 bytes after its newline)."""
    return data[:data.index(b"\n--- ") + 49 + 11]


@pytest.mark.parametrize(("damage", "code"), [
    (lambda data: seal(data, OTHER.recipient), "wrong-recipient"),
    (lambda data: seal(data, KEY.recipient)[:-1], "cannot-open"),  # cut inside its last chunk: a valid length
    (lambda data: _cut_after_header(seal(data, KEY.recipient)), "bad-envelope"),  # no whole nonce
    (lambda data: seal(data, KEY.recipient) + b"\0" * 16, "cannot-open"),  # padded
    (lambda data: seal(b'["SECRET-IDEAL"]', KEY.recipient), "wrong-type"),  # not gold once opened
])
def test_a_bad_sealed_gold_is_its_own_batch_error_and_every_other_batch_publishes(demo, damage, code):
    _with_key(demo)
    gold = demo / SEALED_BATCH / "phaseB.json"
    gold.with_name("phaseB.json.age").write_bytes(damage(gold.read_bytes()))
    gold.unlink()
    summary = score_all(demo, jobs=2, identity=KEY.identity)
    failed = {p.split("/")[2] + "/" + p.split("/")[3] for p in summary.failed}
    assert failed == {"batch2/phaseB", "batch2/phaseAplus"}  # the runs scored against that file only
    assert any(p.startswith("submissions/taskB/batch3/") for p in summary.scored)
    for path in summary.failed:
        problems = summary.problems[path]
        assert problems and all(p["file"] == f"{SEALED_BATCH}/phaseB.json.age" for p in problems), problems
        assert {p["code"] for p in problems} == {code}
        assert "SECRET-IDEAL" not in json.dumps(problems) and "/tmp" not in json.dumps(problems)


def test_import_bioasq_seal_writes_the_gold_sealed_and_the_testsets_without_gold(tmp_path, capsys):
    if not GOLDEN.exists():
        pytest.skip("../shared/data/bioasq-real is absent")
    repo = tmp_path / "challenge"
    assert main(["init", str(repo)]) == 0
    text = (repo / "challenge.toml").read_text(encoding="utf-8")
    (repo / "challenge.toml").write_text(text + '\n[gold]\nsealed = ["taskB"]\n', encoding="utf-8")
    args = ["import-bioasq", "--repo", str(repo), "--batch", "batch1", "--golden", str(GOLDEN), "--seal"]
    assert main(args) == 1  # no [submissions] recipient yet
    assert "has none" in "".join(capsys.readouterr()) and not (repo / "gold/taskb").exists()
    text = (repo / "challenge.toml").read_text(encoding="utf-8")
    (repo / "challenge.toml").write_text(text.replace("[submissions]\n", f'[submissions]\nrecipient = "{KEY.recipient}"\n'),
                                         encoding="utf-8")
    assert main(args) == 0
    folder = repo / "gold/taskb/batch1"
    assert sorted(p.name for p in folder.iterdir()) == ["phaseA.json.age", "phaseB.json.age"]
    for phase in ("phaseA", "phaseB"):
        assert open_envelope((folder / f"{phase}.json.age").read_bytes(), KEY.identity, "x") == GOLDEN.read_bytes()
    testset = json.loads((repo / "testsets/taskb/batch1/phaseB.json").read_text())
    assert {k for q in testset["questions"] for k in q} == {"id", "type", "body"}
    golden = json.loads(GOLDEN.read_text())
    assert [q["id"] for q in testset["questions"]] == [q["id"] for q in golden["questions"]]
    kinds = gold_only_by_kind(golden, [])
    # counted on 11B1_golden.json by a script of its own, not this helper (distinct texts of
    # 4 characters or more, yes/no aside, in no question's body): 260 ideal answers, 77
    # exact answer strings, 676 snippet texts, 454 PMIDs
    assert {kind: len(texts) for kind, texts in kinds.items()} == {"ideal": 260, "exact": 77, "snippets": 676,
                                                                   "documents": 454}
    secrets = gold_only_strings(golden, [])
    assert leaks(repo / "gold", secrets) == leaks(repo / "testsets", secrets) == []  # what the import wrote


def test_seal_is_refused_for_a_task_whose_gold_the_configuration_does_not_seal(tmp_path, capsys):
    if not GOLDEN.exists():
        pytest.skip("../shared/data/bioasq-real is absent")
    repo = tmp_path / "challenge"
    assert main(["init", str(repo)]) == 0
    assert main(["import-bioasq", "--repo", str(repo), "--batch", "batch1", "--golden", str(GOLDEN), "--seal"]) == 1
    out = "".join(capsys.readouterr())
    assert "[gold] sealed does not name taskB" in out
    assert not (repo / "gold/taskb").exists()


def test_the_gold_table_of_challenge_toml_is_read(demo):
    _with_key(demo, "true", 'reveal = 2027-01-01T00:00:00Z\ntestsets = "as-given"')
    challenge = load_challenge(demo)
    assert challenge.gold_is_sealed("taskB") and challenge.gold_is_sealed("mcqa")
    assert challenge.gold_reveal is not None and challenge.gold_reveal.year == 2027
    assert challenge.gold_testsets == "as-given"
    assert challenge.to_json()["gold"]["reveal"] == "2027-01-01T00:00:00Z"


def test_a_participant_validates_without_the_gold_and_score_says_where_the_numbers_come_from(demo, capsys,
                                                                                             monkeypatch):
    _with_key(demo)
    _seal_folder(demo, SEALED_BATCH)
    monkeypatch.chdir(demo)
    run = sorted(Path("submissions/taskB/batch2/phaseB").rglob("*.json"))[0].as_posix()
    assert main(["validate", run, "--challenge", "."]) == 0  # against the test set, no gold needed
    capsys.readouterr()
    for gold in (f"{SEALED_BATCH}/phaseB.json", f"{SEALED_BATCH}/phaseB.json.age"):
        assert main(["score", run, "--gold", gold]) == 1
        out = "".join(capsys.readouterr())
        assert "this gold is sealed" in out and "publish job" in out and "validate RUN --challenge" in out


def test_a_corrected_sealed_gold_is_rescored_and_the_revealed_plain_gold_rescores_nothing(demo):
    _with_key(demo)
    gold = demo / SEALED_BATCH / "phaseB.json"
    original = gold.read_bytes()
    _seal_folder(demo, SEALED_BATCH)
    first = score_all(demo, jobs=2, identity=KEY.identity)
    batch = {p for p in first.scored if p.startswith("submissions/taskB/batch2/phase")
             and not p.startswith("submissions/taskB/batch2/phaseA/")}
    assert batch and not first.failed
    # sealed again, same content: a new envelope, nothing rescored
    sealed = gold.with_name("phaseB.json.age")
    sealed.write_bytes(seal(original, KEY.recipient))
    assert not score_all(demo, jobs=2, identity=KEY.identity).scored
    # a corrected gold (one ideal answer changed), sealed: the runs scored against it are rescored
    value = json.loads(original)
    value["questions"][0]["ideal_answer"] = ["A corrected ideal answer."]
    sealed.write_bytes(seal(json.dumps(value).encode(), KEY.recipient))
    assert set(score_all(demo, jobs=2, identity=KEY.identity).scored) == batch
    # the reveal: the plain gold committed beside the sealed one, same content: nothing rescored
    gold.write_bytes(json.dumps(value).encode())
    revealed = score_all(demo, jobs=1)
    assert not revealed.scored and not revealed.awaiting_gold and not revealed.failed


def test_the_expert_assessment_works_on_sealed_gold_and_the_merge_writes_the_next_version_sealed(tmp_path):
    from test_final_results import assess, tiny_repo
    plain, private = tiny_repo(tmp_path / "plain"), tiny_repo(tmp_path / "private")
    text = (private / "challenge.toml").read_text(encoding="utf-8")
    (private / "challenge.toml").write_text(text + f'\n[submissions]\nrecipient = "{KEY.recipient}"\n\n'
                                                   '[gold]\nsealed = ["taskB"]\n', encoding="utf-8")
    _seal_folder(private, "gold/taskb")
    expected = assess(plain, None)
    with pytest.raises(ScorerError, match="the gold is sealed"):  # without the key: said, nothing written
        assess(private, None)
    assert assess(private, KEY.identity) == expected
    folder = private / "gold/taskb/b2"
    assert sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()) == [
        "phaseA.json.age", "preliminary/phaseA.json.age", "versions.json"]
    for name in ("phaseA.json", "preliminary/phaseA.json"):
        assert open_envelope((folder / f"{name}.age").read_bytes(), KEY.identity, name) == \
            (plain / "gold/taskb/b2" / name).read_bytes()
    assert json.loads((folder / "versions.json").read_text()) == \
        json.loads((plain / "gold/taskb/b2/versions.json").read_text())
    # the final results, and the preliminary ones beside them, are the plain gold's
    assert not score_all(plain).failed and not score_all(private, identity=KEY.identity).failed
    assert {p: (d["measures"], d.get("variants")) for p, d in _results(private).items()} == \
        {p: (d["measures"], d.get("variants")) for p, d in _results(plain).items()}


@pytest.mark.parametrize(("reveal", "warned"), [("", True), ('reveal = "never"', True),
                                                 ("reveal = 2099-01-01T00:00:00Z", True),
                                                 ("reveal = 2026-06-01T00:00:00Z", False)])
def test_a_plain_gold_of_a_sealed_task_before_its_reveal_is_warned_about(demo, reveal, warned):
    _with_key(demo, testsets=reveal)
    _seal_folder(demo, "gold/taskb/batch3")  # batches 1 and 2 stay plain: committed too early, or revealed
    summary = score_all(demo, jobs=2, identity=KEY.identity, now=datetime(2026, 7, 1, tzinfo=UTC))
    found = sorted(p.file for p in summary.warnings if p.code == "plain-gold")
    plain = [f"gold/taskb/batch{b}/{p}.json" for b in (1, 2) for p in ("phaseA", "phaseB")]
    assert found == (plain if warned else [])
    assert not summary.failed


def test_without_the_key_a_run_on_sealed_gold_waits_for_the_publish_job(demo):
    _with_key(demo)
    _seal_folder(demo, SEALED_BATCH)
    waiting = score_all(demo, jobs=2)  # a shard job, a local score-all: no key
    batch2 = {p for p in waiting.awaiting_gold}
    assert batch2 and all(p.startswith("submissions/taskB/batch2/") for p in batch2)
    assert not waiting.failed and waiting.sealed_gold and any(p.startswith("submissions/taskB/batch3/")
                                                               for p in waiting.scored)
    assert set(score_all(demo, jobs=2, identity=KEY.identity).scored) == batch2


@pytest.mark.parametrize("testsets", ['testsets = "questions"', 'testsets = "as-given"'])
def test_a_test_set_of_a_sealed_task_that_carries_gold_is_warned_about(demo, testsets):
    _with_key(demo, testsets=testsets)  # the demo's Phase B test sets carry Phase A's gold, as BioASQ's do,
    _seal_folder(demo, "gold/taskb")     # but batch 3's (the demo's sealed batch): id, type and body only
    summary = score_all(demo, jobs=2, identity=KEY.identity)
    found = sorted((p.file, p.pointer) for p in summary.warnings if p.code == "testset-gold")
    expected = [(f"testsets/taskb/batch{b}/phaseB.json", "/questions/0/documents") for b in (1, 2)]
    assert found == (expected if "questions" in testsets else [])


def test_a_run_page_of_a_sealed_batch_lists_the_runs_own_items_and_nothing_of_the_gold(demo, tmp_path):
    """Sealed gold: a run page shows, question by question, what the run returned (its
    documents, snippets, answers), unmarked, and no string only the gold holds."""
    from scorer.site.build import build_site
    _with_key(demo)
    runs = {p.relative_to(demo).as_posix(): json.loads(p.read_text())
            for p in (demo / "submissions/taskB/batch2").rglob("*.json")}
    sent = "\n".join(p.read_text(encoding="utf-8") for p in (demo / "submissions/taskB/batch2").rglob("*.json"))
    kinds: dict[str, set[str]] = {kind: set() for kind in GOLD_KINDS}
    for phase in ("phaseA", "phaseB"):
        _with_gold_only_items(demo / SEALED_BATCH / f"{phase}.json")
        gold = json.loads((demo / SEALED_BATCH / f"{phase}.json").read_text())
        for kind, texts in gold_only_by_kind(gold, list(runs.values())).items():
            kinds[kind] |= {s for s in texts if json.dumps(s)[1:-1] not in sent}  # a run's longer answer quoting it: public
    assert all(GOLD_ONLY[kind] in kinds[kind] for kind in GOLD_KINDS)  # not vacuous: each kind searched for
    secrets = set().union(*kinds.values())
    _seal_folder(demo, SEALED_BATCH)
    assert not score_all(demo, jobs=1, identity=KEY.identity).failed
    build_site(demo, tmp_path / "site", jobs=1)
    pages = tmp_path / "site" / "runs" / "taskB" / "batch2"
    phase_a = next(p for p in sorted(runs) if "/phaseA/" in p)
    team, system = phase_a.removesuffix(".json").split("/")[-2:]
    page = (pages / "phaseA" / team / f"{system}.html").read_text(encoding="utf-8")
    document = runs[phase_a]["questions"][0]["documents"][0].rpartition("/")[2]
    assert f"<li>{document}</li>" in page and "nothing marked" in page
    assert "✓" not in page and "the gold has" not in page.lower()
    assert leaks(tmp_path / "site", secrets) == []


def _answer_blocks(page: str) -> dict[str, str]:
    """Question (Task A: PMID) id -> the HTML of its answer on a run page."""
    return {m[1]: m[0] for m in re.finditer(r'<details class="answer".*?<code>([^<]*)</code>.*?</details>', page, re.S)}


def _answers_section(page: str) -> str:
    return page[page.index('<section class="answers"'):page.index("</section>", page.index('<section class="answers"'))]


def _site_text(site: Path) -> str:
    return "\n".join(p.read_bytes().decode("utf-8", "replace") for p in sorted(site.rglob("*")) if p.is_file())


NOT_PREDICTED = ("Q000001", "Q000002", "Q000003")  # labels no demo run predicts (its labels are D9xxxxx)


def test_a_task_a_run_page_of_a_sealed_batch_lists_each_documents_predicted_labels_and_none_of_the_gold(tmp_path):
    """Task A with sealed gold: each document a run page lists shows the labels the run
    predicted for it, unmarked; no gold label it did not predict for that document is in
    its answer, and the gold's labels no run predicted (three added to every gold document)
    are nowhere on the site: pages, downloads or feed."""
    from scorer.site.build import build_site
    demo = demo_copy(tmp_path / "demo", ("submissions/taskA/batch1/week1/", "submissions/taskA/batch1/week2/"))
    _with_key(demo, '["taskA"]')
    gold: dict[str, dict[str, set]] = {}
    for week in ("week1", "week2"):
        path = demo / "gold/taska/batch1" / f"{week}.json"
        value = json.loads(path.read_text())
        for d in value["documents"][::3]:
            d["labels"] += NOT_PREDICTED
        path.write_text(json.dumps(value))
        gold[week] = {str(d["pmid"]): set(d["labels"]) for d in value["documents"]}
    for week in ("week3", "week4", "week5"):
        (demo / "gold/taska/batch1" / f"{week}.json").unlink()
    runs = {p.relative_to(demo).as_posix(): json.loads(p.read_text()) for p in (demo / "submissions/taskA").rglob("*.json")}
    assert len(runs) == 8 and not any(set(NOT_PREDICTED) & set(d["labels"]) for r in runs.values() for d in r["documents"])
    _seal_folder(demo, "gold/taska/batch1")
    assert not score_all(demo, jobs=1, identity=KEY.identity).failed
    site = tmp_path / "site"
    build_site(demo, site, jobs=1)
    shown = 0
    for path, run in runs.items():
        week, team, system = path.removesuffix(".json").split("/")[-3:]
        page = (site / "runs/taskA/batch1" / week / team / f"{system}.html").read_text(encoding="utf-8")
        blocks = _answer_blocks(page)
        predicted = {str(d["pmid"]): d["labels"] for d in run["documents"]}
        assert len(blocks) == min(50, len(gold[week])) and "nothing marked" in page
        for pmid, block in blocks.items():
            labels = re.findall(r"<code>(Q?D?\d+)</code>", block.split("</p>", 1)[1])
            assert labels == list(dict.fromkeys(predicted.get(pmid, []))), (path, pmid)
            assert not (gold[week][pmid] - set(predicted.get(pmid, []))) & set(re.findall(r"[DQ]\d{6}", block))
            assert "right" not in block and "missed" not in block and 'class="miss"' not in block
            shown += 1
    assert shown == 8 * 50
    assert [s for s in NOT_PREDICTED if s in _site_text(site)] == []


def _mcqa_gold_rotated(gold: dict) -> dict:
    """The mcqa gold with each question's correct candidate the next one (its last: the first)."""
    for topic in gold["topics"]:
        for test in topic["reading_tests"]:
            for q in test["questions"]:
                ids = [c["id"] for c in q["candidates"]]
                q["correct"] = ids[(ids.index(q["correct"]) + 1) % len(ids)]
    return gold


def test_an_mcqa_run_page_of_a_sealed_batch_shows_the_chosen_candidates_and_not_the_correct_ones(tmp_path):
    """mcqa with sealed gold: each question of a run page lists its candidates with the
    one the run chose, none marked correct and no verdict; the answers are byte for byte
    the same under a gold whose every correct candidate differs (only the values change)."""
    from scorer.site.build import build_site
    sections: list[dict[str, str]] = []
    for rotated in (False, True):
        demo = demo_copy(tmp_path / f"demo{int(rotated)}", ("submissions/mcqa/batch1/",))
        _with_key(demo, '["mcqa"]')
        path = demo / "gold/mcqa/batch1/gold.json"
        gold = json.loads(path.read_text())
        path.write_text(json.dumps(_mcqa_gold_rotated(gold) if rotated else gold))
        (demo / "gold/mcqa/batch2/gold.json").unlink()
        _seal_folder(demo, "gold/mcqa/batch1")
        assert not score_all(demo, jobs=1, identity=KEY.identity).failed
        site = tmp_path / f"site{int(rotated)}"
        build_site(demo, site, jobs=1)
        runs = {p.relative_to(demo).as_posix(): json.loads(p.read_text())
                for p in (demo / "submissions/mcqa").rglob("*.json")}
        texts = {q["id"]: {c["id"]: c["text"] for c in q["candidates"]}
                 for t in gold["topics"] for rt in t["reading_tests"] for q in rt["questions"]}
        pages = {}
        for run_path, run in runs.items():
            team, system = run_path.removesuffix(".json").split("/")[-2:]
            page = (site / "runs/mcqa/batch1/run" / team / f"{system}.html").read_text(encoding="utf-8")
            blocks = _answer_blocks(page)
            assert list(blocks) == list(texts) and "nothing marked" in page
            for answer in run["answers"]:
                block = blocks[answer["question"]]
                marked = re.findall(r"<li>([^<]*) <strong>(chosen|named, not answered \(NoA\))</strong></li>", block)
                named = answer["answer"] if answer["answer"] is not None else answer.get("candidate")
                mark = "chosen" if answer["answer"] is not None else "named, not answered (NoA)"
                assert [(html.unescape(t), m) for t, m in marked] == ([(texts[answer["question"]][named], mark)]
                                                                     if named else []), (run_path, answer)
                assert "correct" not in block and "class=\"hit\"" not in block and "right" not in block
            pages[run_path] = _answers_section(page)
        text = _site_text(site / "runs") + _site_text(site / "compare")  # the answers side by side too
        assert "<em>correct</em>" not in text and "and the correct one" not in text and "Answered " not in text
        assert text.count('<details class="answer"') > len(runs) * len(texts)
        sections.append(pages)
    assert sections[0] == sections[1]


def _private_tiny_repo(root: Path) -> Path:
    """tests/test_final_results.py's tiny challenge with its Task B gold sealed, a git work tree."""
    from test_final_results import tiny_repo
    private = tiny_repo(root)
    text = (private / "challenge.toml").read_text(encoding="utf-8")
    (private / "challenge.toml").write_text(text + f'\n[submissions]\nrecipient = "{KEY.recipient}"\n\n'
                                                   '[gold]\nsealed = ["taskB"]\n', encoding="utf-8")
    _seal_folder(private, "gold/taskb")
    subprocess.run(["git", "init", "-q", str(private)], check=True)
    return private


def test_the_pool_of_a_sealed_gold_goes_outside_the_work_tree_and_the_merge_seals_the_next_gold(tmp_path, capsys):
    """``pool`` on a sealed gold writes beside the repository (``<work tree>-assessment/``),
    refuses an --out inside the work tree (located, with the fix, nothing written) unless
    --inside-repo; ``assess merge`` of that pool writes the next gold sealed, no plain gold."""
    from scorer.assessment.judgements import new_judgements, pool_digest, pool_items, save_judgements, with_judgement

    from test_final_results import ACCEPTED
    private = _private_tiny_repo(tmp_path / "private")
    identity = tmp_path / "key.txt"
    identity.write_text(KEY.identity, encoding="utf-8")
    pool = ["pool", "--repo", str(private), "--task", "taskB", "--batch", "b2", "--phase", "phaseA",
            "--identity", str(identity), "--now", "2026-05-01T00:00:00Z"]
    for inside in (private / "assessment" / "b2", private / "gold" / ".." / "elsewhere"):
        assert main([*pool, "--out", str(inside)]) == 1
        out = "".join(capsys.readouterr())
        assert f"{inside}: error: the pool of taskB b2 phaseA would be written inside the repository's work tree" in out
        assert str(tmp_path / "private-assessment/taskB/b2/phaseA") in out and "--inside-repo" in out
    assert list(private.rglob("pool.json")) == [] and not (private / "assessment-keys").exists()
    assert main([*pool, "--out", str(private / "assessment" / "b2"), "--inside-repo"]) == 0
    capsys.readouterr()
    assert main(pool) == 0
    folder = tmp_path / "private-assessment/taskB/b2/phaseA"
    assert str(folder) in capsys.readouterr().out and (folder / "pool.json").is_file()
    assert [p.relative_to(private).as_posix() for p in private.rglob("pool.json")] == ["assessment/b2/pool.json"]
    document = json.loads((folder / "pool.json").read_text())
    judgements = new_judgements("expert", pool_digest((folder / "pool.json").read_bytes()))
    for key, (kind, item, _) in pool_items(document).items():
        judgements = with_judgement(judgements, key, {"relevant": kind == "documents" and item["pmid"] in ACCEPTED})
    save_judgements(folder / "judgements" / "expert.json", judgements)
    assert main(["assess", "merge", str(folder), str(folder / "judgements/expert.json"), "--repo", str(private),
                 "--identity", str(identity)]) == 0
    gold = private / "gold/taskb/b2"
    assert sorted(p.relative_to(gold).as_posix() for p in gold.rglob("*") if p.is_file()) == [
        "phaseA.json.age", "preliminary/phaseA.json.age", "versions.json"]
    merged = json.loads(open_envelope((gold / "phaseA.json.age").read_bytes(), KEY.identity, "gold"))
    before = json.loads(open_envelope((gold / "preliminary/phaseA.json.age").read_bytes(), KEY.identity, "gold"))
    added = {d for q in merged["questions"] for d in q["documents"]} - {d for q in before["questions"]
                                                                        for d in q["documents"]}
    assert {d.rpartition("/")[2] for d in added} == ACCEPTED and len(added) == 1


def test_the_synergy_feedback_of_a_sealed_gold_goes_beside_its_pool_outside_the_work_tree(tmp_path, capsys):
    """Synergy with sealed gold: the round's pool and its feedback (which marks the gold's
    documents) go to ``<work tree>-assessment/synergy/<round>/``; a feedback --out inside
    the work tree is refused, nothing written."""
    from scorer.assessment.judgements import new_judgements, pool_digest, save_judgements
    repo = demo_copy(tmp_path / "repo", ("submissions/synergy/round1/",))
    _with_key(repo, '["synergy"]')
    _seal_folder(repo, "gold/synergy/round1")
    identity = tmp_path / "key.txt"
    identity.write_text(KEY.identity, encoding="utf-8")
    assert main(["pool", "--repo", str(repo), "--task", "synergy", "--batch", "round1", "--phase", "run",
                 "--now", "2030-01-01T00:00:00Z", "--identity", str(identity)]) == 0
    folder = tmp_path / "repo-assessment/synergy/round1/run"
    save_judgements(folder / "judgements" / "x.json",
                    new_judgements("x", pool_digest((folder / "pool.json").read_bytes())))
    feedback = ["synergy-feedback", "round1", "--repo", str(repo), "--identity", str(identity)]
    assert main([*feedback, "--out", str(repo / "feedback.json")]) == 1
    assert "the feedback of synergy round1 would be written inside" in "".join(capsys.readouterr())
    assert main(feedback) == 0
    assert (tmp_path / "repo-assessment/synergy/round1/feedback.json").is_file()
    assert not (repo / "assessment/synergy").exists() and not (repo / "feedback.json").exists()
