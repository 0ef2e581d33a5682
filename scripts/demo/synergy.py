"""Synergy: two rounds of questions on a developing topic.

Round 1 poses six questions; two are not ready to answer (documents and snippets only).
The experts' feedback of round 1 (its gold) judges part of each question's evidence.
Round 2 carries one question over (a new version of its body, now ready to answer), adds
three new ones (one not ready) and judges the rest of the evidence; its gold repeats one
document of round 1's feedback, which the scorer leaves out (``exclude_judged``).
"""
from __future__ import annotations

import random

from .questions import make_question
from .taskb import Library, phase_a_run, phase_b_answer
from .world import FILLERS, PUBMED, World

ROUND_KINDS = {"round1": ("yesno", "factoid", "list", "summary", "list", "yesno"),
               "round2": ("factoid", "list", "summary")}
NOT_READY = {"round1": (4, 5), "round2": (2,)}  # positions of the questions not ready to answer
CARRIED = 5  # round 1's question carried over to round 2


def make_rounds(rng: random.Random, world: World, used: set) -> tuple[Library, dict[str, list[dict]]]:
    """The articles and each round's questions, each with its ``evidence`` (documents and
    snippets) split into what each round's feedback judges (``judged``: round -> evidence)."""
    library = Library(random.Random(rng.getrandbits(64)))
    library._next = 95200000 + rng.randrange(1000)  # ids apart from Task B's synthetic PubMed
    rounds: dict[str, list[dict]] = {}
    for number, (name, kinds) in enumerate(ROUND_KINDS.items(), 1):
        questions = []
        for i, kind in enumerate(kinds):
            q = make_question(kind, rng, world, used)
            q["id"] = f"{0x6a0de5a0 + number:08x}{0x5e000 + i + 1:016x}"
            q["ready"] = i not in NOT_READY[name]
            q["documents"], q["snippets"] = _evidence(rng, library, q)
            questions.append(q)
        rounds[name] = questions
    carried = dict(rounds["round1"][CARRIED])
    carried["body"] = carried["body"].rstrip("?") + ", according to the studies published so far?"
    carried["ready"] = True
    rounds["round2"].insert(0, carried)
    for _ in range(25):  # articles no question needs
        library.add(f"A synthetic preprint on {rng.choice(FILLERS)[:40]}", [])
    return library, rounds


def _evidence(rng: random.Random, library: Library, q: dict) -> tuple[list[str], list[dict]]:
    documents, snippets = [], []
    for _ in range(rng.randint(4, 6)):
        facts = rng.sample(q["facts"], rng.randint(1, len(q["facts"])))
        pmid = library.add(f"Early findings: {q['body'].rstrip('?')}", facts)
        documents.append(PUBMED + pmid)
        snippets += [library.sentence_spans(pmid, fact) for fact in facts]
    return documents, snippets


def round_gold(questions: list[dict], round_no: int, carried_id: str) -> dict:
    """A round's feedback: for each question, the evidence judged in this round (round 1:
    the first half of each question's documents; round 2: the rest of the carried-over
    question's, plus one document of round 1 again, and all of a new question's), the
    answers of the questions ready to answer."""
    out = []
    for q in questions:
        documents = q["documents"]
        half = len(documents) // 2
        if q["id"] == carried_id:
            judged = documents[:half] if round_no == 1 else documents[half:] + documents[:1]
        else:
            judged = documents[:half] if round_no == 1 and not q["ready"] else documents
        gold = {"id": q["id"], "type": q["type"], "body": q["body"], "answerReady": q["ready"],
                "documents": judged, "snippets": [s for s in q["snippets"] if s["document"] in judged]}
        if q["ready"]:
            gold["ideal_answer"] = q["ideal"]
            if q["exact"] is not None:
                gold["exact_answer"] = q["exact"]
        out.append(gold)
    return {"questions": out}


def round_questions(questions: list[dict]) -> dict:
    """What participants receive: id, type, body and whether the question is ready to answer."""
    return {"questions": [{"id": q["id"], "type": q["type"], "body": q["body"], "answerReady": q["ready"]}
                          for q in questions]}


def synergy_run(rng: random.Random, library: Library, questions: list[dict], spec: dict) -> dict:
    """Documents and snippets for every question (as a Phase A run), answers for the ready ones."""
    pmids = list(library.articles)
    retrieval = phase_a_run(rng, library, [{**q, "concepts": None} for q in questions],
                            {**spec, "concepts": False, "skip": 0.0}, [], pmids)
    by_id = {q["id"]: q for q in retrieval["questions"]}
    out = []
    for q in questions:
        entry = {"id": q["id"], "type": q["type"], "body": q["body"],
                 "documents": by_id[q["id"]]["documents"], "snippets": by_id[q["id"]].get("snippets", [])}
        if q["ready"]:
            answer = phase_b_answer(rng, q, spec)
            entry.update({k: v for k, v in answer.items() if k in ("exact_answer", "ideal_answer")})
        out.append(entry)
    return {"questions": out}
