"""The pool out to, and judgements in from, the assessors' own tools (``docs/assessment.md``).

**Out** (``python -m scorer pool --format``), both as blind as ``pool.json``:

* ``label-studio``: Label Studio tasks (:func:`label_studio_tasks`), one per pooled item:
  ``data`` holds a heading (a Label Studio ``Header`` shows one data field or static
  text, never both), the question, the item (its text, PubMed link and place, the gold's
  answers for an answer, a note when the runs disagree on a snippet's text), the item's
  key and the pool's SHA-256; ``predictions`` holds the pooled item itself, as what "the
  pool" (``model_version``, never a system) returned.  :data:`LABEL_STUDIO_CONFIG` is
  the labeling interface that shows them and collects the judgements.
* ``qrels``: TREC qrels candidates for the pooled documents (:func:`qrels_candidates`):
  ``<question id> 0 <PMID> -1``, one line each; the assessor puts 1 (relevant) or 0 (not)
  in the last column, and a line left at -1 is not judged.

**In** (``assess merge`` and ``synergy-feedback`` read any of them, :func:`read_judgement_file`):

* the project's own judgements file (:mod:`scorer.assessment.judgements`);
* a Label Studio JSON export of those tasks (a JSON array of tasks with
  ``annotations``): every annotation not cancelled is one judgement by its annotator
  (``completed_by``), read from its ``result`` items: the choice ``judgement``
  (relevant / not relevant, correct / wrong / synonym), the numbers ``entry`` (the gold
  entry, from 1, a synonym is of) and ``span_begin``/``span_end`` (the relevant part of
  a snippet), the ratings ``recall``, ``precision``, ``repetition``, ``readability``;
  one annotator's judgements form one assessor's set (``annotator-<id>``, or the
  annotator's e-mail address when the export gives it);
* TREC qrels (``qid 0 docid rel``): relevance of the pooled documents by question id and
  PMID, ``rel`` > 0 relevant, 0 not relevant, < 0 not judged; one file is one assessor,
  named by the file's name.

Every judgement read is checked as the judging page checks it
(:func:`scorer.assessment.judgements.judgement_problems`), and every problem is located
in the file read (its JSON pointer or line), so the same majority rule and kappa apply
whatever tool the assessors used.
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from scorer.assessment.judgements import judgement_problems, load_judgements, pool_items
from scorer.assessment.merge import GOLD_URL, MANUAL_CRITERIA
from scorer.core.errors import Problem, ScorerError
from scorer.formats.jsontext import load_json

FORMATS = ("json", "label-studio", "qrels")
#: The file each format writes beside ``pool.json`` (the configuration too for Label Studio).
FORMAT_FILES = {"label-studio": ("pool.label-studio.json", "label-studio.xml"), "qrels": ("pool.qrels",)}
LABEL_STUDIO_MODEL = "pool"
UNJUDGED = -1
#: The Label Studio labeling interface of the tasks (their ``data`` members, the controls read back).
LABEL_STUDIO_CONFIG = """<View>
  <Header value="$heading"/>
  <Text name="question" value="$question"/>
  <Text name="item" value="$text"/>
  <Text name="where" value="$where"/>
  <Text name="gold" value="$gold"/>
  <Text name="note" value="$note"/>
  <TextArea name="returned" toName="question" editable="false" placeholder="what the systems returned"/>
  <Choices name="judgement" toName="question" choice="single">
    <Choice value="relevant"/>
    <Choice value="not relevant"/>
    <Choice value="correct"/>
    <Choice value="wrong"/>
    <Choice value="synonym"/>
  </Choices>
  <Header value="A synonym: the number of the gold entry it is a synonym of"/>
  <Number name="entry" toName="question" min="1"/>
  <Header value="A snippet: the relevant part (offsets), when not all of it"/>
  <Number name="span_begin" toName="question" min="0"/>
  <Number name="span_end" toName="question" min="1"/>
  <Header value="An ideal answer: the four scores"/>
  <Rating name="recall" toName="question" maxRating="5"/>
  <Rating name="precision" toName="question" maxRating="5"/>
  <Rating name="repetition" toName="question" maxRating="5"/>
  <Rating name="readability" toName="question" maxRating="5"/>
</View>
"""
#: Label Studio choice -> (item kinds it judges, the judgement it makes).
CHOICES: dict[str, tuple[tuple[str, ...], dict]] = {
    "relevant": (("documents", "snippets"), {"relevant": True}),
    "not relevant": (("documents", "snippets"), {"relevant": False}),
    "correct": (("exact_answers",), {"verdict": "correct"}),
    "wrong": (("exact_answers",), {"verdict": "wrong"}),
    "synonym": (("exact_answers",), {"verdict": "synonym"}),
}


def _shown(kind: str, item: Mapping) -> str:
    """The text of an item as an assessor reads it."""
    return f"PubMed {item['pmid']}" if kind == "documents" else str(item.get("text", ""))


def label_studio_tasks(pool: Mapping, digest: str) -> list[dict]:
    """The Label Studio tasks of a pool, one per item, in the pool's order (module doc)."""
    tasks = []
    for key, (kind, item, question) in pool_items(pool).items():
        entries = question.get("gold_exact_answer", [])
        where = (f"{item['beginSection']} [{item['offsetInBeginSection']}, {item['offsetInEndSection']})"
                 if kind == "snippets" else "")
        note = (f"The runs disagree on this text: {', '.join(item['conflicts_with'])} give other text for some of "
                "these characters; judge relevant only the text the document holds." if item.get("conflicts_with")
                else "")
        data = {"pool": digest, "item": key, "question_id": question["id"], "question": question.get("body") or "",
                "question_type": question.get("type") or "", "kind": kind.replace("_", " "),
                "heading": f"Question {question['id']} ({question.get('type') or 'no type'}): judge this "
                           f"{kind.replace('_', ' ')[:-1]}",
                "text": _shown(kind, item), "document": GOLD_URL + item["pmid"] if "pmid" in item else "",
                "where": where, "note": note,
                "gold": "   ".join(f"{k}. {' | '.join(e)}" for k, e in enumerate(entries, 1))
                if kind == "exact_answers" else ""}
        result = [{"id": item["item"], "from_name": "returned", "to_name": "question", "type": "textarea",
                   "value": {"text": [_shown(kind, item)]}}]
        tasks.append({"data": data, "predictions": [{"model_version": LABEL_STUDIO_MODEL, "result": result}]})
    return tasks


def qrels_candidates(pool: Mapping) -> tuple[str, list[str]]:
    """The qrels candidates of a pool's documents (module doc) and the item keys left out
    because their question id or document id holds white space (no qrels column can)."""
    lines, left_out = [], []
    for key, (kind, item, question) in pool_items(pool).items():
        if kind != "documents":
            continue
        if re.search(r"\s", question["id"] + item["pmid"]) or not item["pmid"]:
            left_out.append(key)
        else:
            lines.append(f"{question['id']} 0 {item['pmid']} {UNJUDGED}\n")
    return "".join(lines), left_out


def assessor_name(text: str) -> str:
    """A name of the judgements schema's form (letters, digits, ``.``, ``_``, ``-``, at
    most 64, a letter or digit first) made from any text: others become ``_``."""
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", text)[:63]
    return name if name[:1].isalnum() else f"a{name}"[:64]


def read_judgement_file(path: Path, pool: Mapping, digest: str) -> list[dict]:
    """The judgement sets (one per assessor) of a file in any format of the module doc."""
    try:
        start = path.read_bytes()[:4096].lstrip()
    except OSError as exc:
        raise ScorerError(Problem(code="unreadable", file=str(path), message=f"cannot read it: {exc.strerror}",
                                  fix="give a judgements file that exists")) from None
    if start.startswith(b"{"):
        return [load_judgements(path, pool, digest)]
    if start.startswith(b"["):
        return label_studio_judgements(load_json(path)[0], pool, digest, str(path))
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise ScorerError(Problem(code="not-utf8", file=str(path), message="the file is neither JSON nor UTF-8 text",
                                  fix="give a judgements file, a Label Studio JSON export or TREC qrels")) from None
    return [qrels_judgements(text, pool, digest, str(path), assessor_name(path.stem))]


def _bad(name: str, pointer: str | None, message: str, fix: str, **where) -> Problem:
    return Problem(code="bad-judgement", file=name, pointer=pointer, message=message, fix=fix, **where)


def _annotator(value: object) -> str | None:
    """``completed_by`` of an annotation: a user id, or a user object (e-mail, else id)."""
    if isinstance(value, dict):
        value = value.get("email") or value.get("id")
    if isinstance(value, bool) or not isinstance(value, int | str) or value == "":
        return None
    return assessor_name(value if isinstance(value, str) else f"annotator-{value}")


def _controls(result: object) -> dict[str, object] | None:
    """from_name -> value of an annotation's ``result`` items (None: not a list of objects)."""
    if not isinstance(result, list) or not all(isinstance(r, dict) for r in result):
        return None
    found: dict[str, object] = {}
    for r in result:
        value = r.get("value") if isinstance(r.get("value"), dict) else {}
        kind = r.get("type")
        if kind in ("choices", "number", "rating") and kind in value:
            choice = value[kind]
            found[str(r.get("from_name"))] = choice[0] if kind == "choices" and isinstance(choice, list) and choice \
                else choice
    return found


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _judgement(kind: str, controls: Mapping[str, object]) -> tuple[dict | None, str]:
    """The judgement an annotation makes of an item of ``kind``, or (None, what is wrong)."""
    if kind == "ideal_answers":
        scores = {c: controls.get(c) for c in MANUAL_CRITERIA}
        if not all(_whole(v) for v in scores.values()):
            return None, "an ideal answer needs the four ratings recall, precision, repetition and readability"
        return scores, ""
    choice = controls.get("judgement")
    if not isinstance(choice, str) or choice not in CHOICES or kind not in CHOICES[choice][0]:
        allowed = [c for c, (kinds, _) in CHOICES.items() if kind in kinds]
        return None, f"a {kind.replace('_', ' ')[:-1]} is judged {' or '.join(allowed)}, not {choice!r}"
    judgement = dict(CHOICES[choice][1])
    if choice == "synonym":
        entry = controls.get("entry")
        if not isinstance(entry, int) or isinstance(entry, bool):
            return None, "a synonym needs the number of its gold entry (entry, from 1)"
        judgement["of"] = entry - 1
    if kind == "snippets" and ("span_begin" in controls or "span_end" in controls):
        span = [controls.get("span_begin"), controls.get("span_end")]
        if not all(_whole(v) for v in span):
            return None, "a snippet's part needs both span_begin and span_end, whole numbers"
        judgement["span"] = span
    return judgement, ""


def label_studio_judgements(value: object, pool: Mapping, digest: str, name: str) -> list[dict]:
    """One judgement set per annotator of a Label Studio JSON export (module doc); a
    :class:`ScorerError` with every problem, located by JSON pointer, otherwise."""
    items = pool_items(pool)
    problems: list[Problem] = []
    sets: dict[str, dict[str, dict]] = {}
    fix = "export the project of `python -m scorer pool --format label-studio` as JSON"
    for t, task in enumerate(value if isinstance(value, list) else []):
        data = task.get("data") if isinstance(task, dict) else None
        if not isinstance(data, dict):
            problems.append(_bad(name, f"/{t}", "not a task of the pool (no \"data\" object)", fix))
            continue
        key = data.get("item")
        if data.get("pool") != digest:
            problems.append(Problem(code="other-pool", file=name, pointer=f"/{t}/data/pool",
                                    message="this task is of another pool (its digest differs)",
                                    fix="judge the tasks of the current pool, or merge with the pool they name"))
            continue
        if not isinstance(key, str) or key not in items:
            problems.append(_bad(name, f"/{t}/data/item", f"the pool has no item {key!r}", fix))
            continue
        annotations = task.get("annotations", [])
        for a, annotation in enumerate(annotations if isinstance(annotations, list) else [None]):
            pointer = f"/{t}/annotations/{a}"
            if isinstance(annotation, dict) and annotation.get("was_cancelled") is True:
                continue
            assessor = _annotator(annotation.get("completed_by")) if isinstance(annotation, dict) else None
            controls = _controls(annotation.get("result")) if isinstance(annotation, dict) else None
            if assessor is None or controls is None:
                problems.append(_bad(name, pointer, "not an annotation with completed_by and a result list", fix))
                continue
            judgement, wrong = _judgement(items[key][0], controls)
            if judgement is None:
                problems.append(_bad(name, pointer + "/result", f"{key}: {wrong}",
                                     "complete the annotation in Label Studio and export again",
                                     question_id=items[key][2]["id"]))
                continue
            if key in sets.setdefault(assessor, {}):
                problems.append(_bad(name, pointer, f"{assessor} annotated {key} twice",
                                     "keep one annotation per annotator and task"))
                continue
            found = judgement_problems(key, judgement, items)
            problems += [p.located(file=name, pointer=pointer + "/result") for p in found]
            sets[assessor][key] = judgement
    if not isinstance(value, list):
        problems.append(_bad(name, None, "a Label Studio export is a JSON array of tasks", fix))
    if problems:
        raise ScorerError(problems)
    return [{"version": 1, "assessor": assessor, "pool": digest, "judgements": dict(sorted(judged.items()))}
            for assessor, judged in sorted(sets.items())]


def qrels_judgements(text: str, pool: Mapping, digest: str, name: str, assessor: str) -> dict:
    """One assessor's relevance of the pooled documents from TREC qrels (module doc); a
    :class:`ScorerError` with every problem, located by line, otherwise."""
    documents = {(question["id"], item["pmid"]): key
                 for key, (kind, item, question) in pool_items(pool).items() if kind == "documents"}
    judged: dict[str, dict] = {}
    problems = []
    for number, line in enumerate(text.splitlines(), 1):
        parts = line.split()
        if not parts or parts[0].startswith("#"):
            continue
        if len(parts) != 4 or not re.fullmatch(r"-?\d{1,9}", parts[3]):
            problems.append(_bad(name, None, "a qrels line is: question-id 0 PMID relevance (a whole number)",
                                 "write e.g. `q1 0 12345678 1` (1 relevant, 0 not relevant, -1 not judged)",
                                 line=number))
            continue
        qid, _, pmid, relevance = parts
        if int(relevance) < 0:
            continue
        key = documents.get((qid, pmid))
        if key is None:
            problems.append(_bad(name, None, f"document {pmid} of question {qid} is not in the pool",
                                 "judge the lines of `python -m scorer pool --format qrels` only",
                                 line=number, question_id=qid))
        elif key in judged:
            problems.append(_bad(name, None, f"document {pmid} of question {qid} is judged twice",
                                 "keep one line per question and document", line=number, question_id=qid))
        else:
            judged[key] = {"relevant": int(relevance) > 0}
    if problems:
        raise ScorerError(problems)
    return {"version": 1, "assessor": assessor, "pool": digest, "judgements": dict(sorted(judged.items()))}
