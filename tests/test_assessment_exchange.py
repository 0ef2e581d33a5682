"""The pool out to Label Studio and TREC qrels, and the judgements back in (issue 37): a
round trip through each format gives the same next gold (and expert scores and kappa) as
the judging page's own files.  The Label Studio exports are written here by hand from
Label Studio's export format (tasks with ``data``, ``annotations`` of ``completed_by``
and ``result`` items of type ``choices``, ``number`` and ``rating``), not by the code
under test."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from scorer.assessment.judgements import new_judgements, pool_digest, save_judgements, with_judgement
from scorer.cli import main

ROOT = Path(__file__).resolve().parents[1]
NOW = "2030-01-01T00:00:00Z"


def demo_repo(path: Path) -> Path:
    path.mkdir()
    shutil.copy(ROOT / "challenge.toml", path)
    for part in ("teams", "gold", "submissions", "testsets"):
        shutil.copytree(ROOT / part, path / part)
    return path


def pool_of(repo: Path, phase: str, form: str) -> tuple[Path, dict]:
    assert main(["pool", "--repo", str(repo), "--batch", "batch1", "--phase", phase, "--now", NOW,
                 "--format", form]) == 0
    folder = repo / "assessment/taskB/batch1" / phase
    return folder, json.loads((folder / "pool.json").read_text())


def own_judgements(pool: dict, assessor: str, shift: int) -> dict:
    """A scripted assessor: judges items by their position (``shift`` makes a second one
    disagree on some), trims every third snippet, calls some answers synonyms."""
    value = new_judgements(assessor, "0" * 64)
    n = 0
    for question in pool["questions"]:
        entries = len(question.get("gold_exact_answer", []))
        for kind in pool["kinds"]:
            for item in question.get(kind, []):
                n += 1
                if (n + shift) % 7 == 0:
                    continue  # not judged
                yes = (n + shift) % 3 == 0
                if kind in ("documents", "snippets"):
                    judgement = {"relevant": yes}
                    begin, end = item.get("offsetInBeginSection"), item.get("offsetInEndSection")
                    if kind == "snippets" and yes and n % 2 and end - begin > 2:
                        judgement["span"] = [begin + 1, end - 1]
                elif kind == "exact_answers":
                    judgement = ({"verdict": "synonym", "of": n % entries} if yes and entries and n % 2
                                 else {"verdict": "correct" if yes else "wrong"})
                else:
                    judgement = {"recall": 1 + n % 5, "precision": 1 + (n + shift) % 5, "repetition": 3,
                                 "readability": 5 - shift % 2}
                value = with_judgement(value, f"{question['id']}/{item['item']}", judgement)
    return value


def ls_result(judgement: dict) -> list[dict]:
    """The result items a Label Studio annotator leaves for a judgement (Label Studio's form)."""
    def control(name: str, kind: str, value: object) -> dict:
        return {"id": f"r-{name}", "from_name": name, "to_name": "question", "type": kind, "value": {kind: value}}
    if "relevant" in judgement:
        out = [control("judgement", "choices", ["relevant" if judgement["relevant"] else "not relevant"])]
        if "span" in judgement:
            out += [control("span_begin", "number", judgement["span"][0]),
                    control("span_end", "number", judgement["span"][1])]
        return out
    if "verdict" in judgement:
        out = [control("judgement", "choices", [judgement["verdict"]])]
        return out + ([control("entry", "number", judgement["of"] + 1)] if "of" in judgement else [])
    return [control(c, "rating", judgement[c]) for c in ("recall", "precision", "repetition", "readability")]


def merged(repo: Path, folder: Path, files: list[Path]) -> tuple[dict, dict]:
    assert main(["assess", "merge", str(folder), *map(str, files), "--repo", str(repo)]) == 0
    gold = repo / "gold/taskb/batch1"
    versions = json.loads((gold / "versions.json").read_text())
    manual = {p.name: json.loads(p.read_text()) for p in sorted(gold.glob("manual*.json"))}
    (record,) = versions.values()
    return ({p.name: json.loads(p.read_text()) for p in sorted(gold.glob("phase*.json"))} | manual,
            {"kappa": [pair["kappa"] for pair in record["agreement"]], "version": record["version"]})


@pytest.mark.parametrize("phase", ["phaseA", "phaseB"])
def test_a_round_trip_through_label_studio_gives_the_same_next_gold(tmp_path, phase):
    own_repo, ls_repo = demo_repo(tmp_path / "own"), demo_repo(tmp_path / "ls")
    folder, pool = pool_of(own_repo, phase, "json")
    digest = pool_digest((folder / "pool.json").read_bytes())
    sets = [{**own_judgements(pool, name, shift), "pool": digest} for name, shift in (("a", 0), ("b", 1))]
    for value in sets:
        save_judgements(tmp_path / f"{value['assessor']}.json", value)
    expected = merged(own_repo, folder, [tmp_path / "a.json", tmp_path / "b.json"])
    original = json.loads((ROOT / f"gold/taskb/batch1/{phase}.json").read_text())
    assert expected[0][f"{phase}.json"] != original and expected[1]["kappa"][0] is not None
    manual = json.loads((ROOT / "gold/taskb/batch1/manual.json").read_text())
    assert (expected[0]["manual.json"] != manual) == (phase == "phaseB")  # expert scores of ideal answers

    ls_folder, ls_pool = pool_of(ls_repo, phase, "label-studio")
    assert ls_pool == pool
    tasks = json.loads((ls_folder / "pool.label-studio.json").read_text())
    key = json.loads(next((ls_repo / "assessment-keys").rglob("pool-key.json")).read_text())
    teams = {run.split("/")[1] for run in key["runs"]}
    assert not any(team in json.dumps(tasks) for team in teams)  # blind: no team names
    assert {p["model_version"] for t in tasks for p in t["predictions"]} == {"pool"}
    assert len(tasks) == sum(len(q.get(kind, [])) for q in pool["questions"] for kind in pool["kinds"])
    export = []
    for number, task in enumerate(tasks, 1):  # what Label Studio's JSON export gives back
        annotations = [{"id": 100 * user + number, "completed_by": user, "was_cancelled": False,
                        "result": ls_result(value["judgements"][task["data"]["item"]])}
                       for user, value in ((1, sets[0]), (2, sets[1])) if task["data"]["item"] in value["judgements"]]
        export.append({"id": number, "data": task["data"], "annotations": annotations,
                       "predictions": task["predictions"]})
    export[0]["annotations"].append({"id": 9999, "completed_by": 3, "was_cancelled": True, "result": []})
    (tmp_path / "export.json").write_text(json.dumps(export))
    assert merged(ls_repo, ls_folder, [tmp_path / "export.json"]) == expected


def test_a_round_trip_through_qrels_gives_the_same_next_gold(tmp_path):
    own_repo, qrels_repo = demo_repo(tmp_path / "own"), demo_repo(tmp_path / "qrels")
    folder, pool = pool_of(own_repo, "phaseA", "json")
    value = own_judgements(pool, "a", 0)
    value = {**value, "pool": pool_digest((folder / "pool.json").read_bytes()),
             "judgements": {k: j for k, j in value["judgements"].items() if "/d" in k}}
    save_judgements(tmp_path / "a.json", value)
    expected = merged(own_repo, folder, [tmp_path / "a.json"])
    assert expected[0]["phaseA.json"] != json.loads((ROOT / "gold/taskb/batch1/phaseA.json").read_text())

    qrels_folder, _ = pool_of(qrels_repo, "phaseA", "qrels")
    pmid = {f"{q['id']}/{d['item']}": d["pmid"] for q in pool["questions"] for d in q["documents"]}
    lines = (qrels_folder / "pool.qrels").read_text().splitlines()
    assert len(lines) == len(pmid) and all(line.endswith(" -1") for line in lines)
    by_place = {(k.split("/")[0], pmid[k]): j for k, j in value["judgements"].items()}
    filled = []
    for line in lines:  # the assessor fills in the last column; unjudged lines stay -1
        qid, zero, doc, _ = line.split(" ")
        judgement = by_place.get((qid, doc))
        filled.append(f"{qid} {zero} {doc} {-1 if judgement is None else int(judgement['relevant'])}")
    (tmp_path / "alice.qrels").write_text("\n".join(filled) + "\n")
    assert merged(qrels_repo, qrels_folder, [tmp_path / "alice.qrels"]) == expected


def test_bad_judgement_files_are_located(tmp_path, capsys):
    repo = demo_repo(tmp_path / "repo")
    folder, pool = pool_of(repo, "phaseA", "label-studio")
    tasks = json.loads((folder / "pool.label-studio.json").read_text())
    document = next(t for t in tasks if t["data"]["kind"] == "documents")
    export = [{**document, "annotations": [{"completed_by": 1, "result": [
                  {"from_name": "judgement", "to_name": "question", "type": "choices", "value": {"choices": ["synonym"]}}]}]},
              {"data": {**document["data"], "item": "nope/d1"}, "annotations": []},
              {"data": {**document["data"], "pool": "e" * 64}, "annotations": []}]
    (tmp_path / "export.json").write_text(json.dumps(export))
    assert main(["assess", "merge", str(folder), str(tmp_path / "export.json"), "--repo", str(repo)]) == 1
    err = capsys.readouterr().err
    assert "at /0/annotations/0/result" in err and "judged relevant or not relevant, not 'synonym'" in err
    assert "at /1/data/item" in err and "at /2/data/pool" in err and err.count("fix:") >= 3

    first = pool["questions"][0]
    qrels = f"{first['id']} 0 {first['documents'][0]['pmid']} 1\nq-unknown 0 123 1\nnot a line\n"
    (tmp_path / "bob.qrels").write_text(qrels)
    assert main(["assess", "merge", str(folder), str(tmp_path / "bob.qrels"), "--repo", str(repo)]) == 1
    err = capsys.readouterr().err
    assert "bob.qrels:2:" in err and "not in the pool" in err and "bob.qrels:3:" in err
    assert not (repo / "gold/taskb/batch1/preliminary").exists()


def test_qrels_are_for_documents(tmp_path, capsys):
    repo = demo_repo(tmp_path / "repo")
    assert main(["pool", "--repo", str(repo), "--batch", "batch1", "--phase", "phaseB", "--now", NOW,
                 "--format", "qrels"]) == 1
    assert "qrels are for documents" in capsys.readouterr().err
    assert not (repo / "assessment").exists()
