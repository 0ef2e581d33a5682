"""Task B: a synthetic PubMed (:class:`Library`), the batches' questions with their gold
documents, snippets and concepts, the test sets and gold files of both phases, the runs
(Phase A and Phase B) and the experts' manual scores."""
from __future__ import annotations

import random

from .config import TASKB_TYPE_COUNTS
from .questions import make_question
from .world import FILLERS, GENES, MESH_URI, METHODS, MODELS, PUBMED, World, cap


class Library:
    """Synthetic PubMed: ids 9xxxxxxx with a title and an abstract each."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.articles: dict[str, dict[str, str]] = {}
        self._next = 90100000 + rng.randrange(1000)

    def new_id(self) -> str:
        self._next += self.rng.randint(1, 997)
        return str(self._next)

    def filler(self) -> str:
        return self.rng.choice(FILLERS).format(n=self.rng.randint(12, 480), w=self.rng.randint(2, 52),
                                               model=self.rng.choice(MODELS), method=self.rng.choice(METHODS))

    def add(self, title: str, fact_sentences: list[str]) -> str:
        """An article whose abstract holds the fact sentences among filler sentences."""
        pmid = self.new_id()
        sentences = [self.filler() for _ in range(self.rng.randint(2, 5))]
        for fact in fact_sentences:
            sentences.insert(self.rng.randint(0, len(sentences)), fact)
        self.articles[pmid] = {"title": title, "abstract": " ".join(sentences)}
        return pmid

    def span(self, pmid: str, section: str, begin: int, end: int) -> dict:
        text = self.articles[pmid][section]
        return {"document": PUBMED + pmid, "text": text[begin:end], "offsetInBeginSection": begin,
                "offsetInEndSection": end, "beginSection": section, "endSection": section}

    def sentence_spans(self, pmid: str, sentence: str) -> dict:
        text = self.articles[pmid]["abstract"]
        begin = text.index(sentence)
        return self.span(pmid, "abstract", begin, begin + len(sentence))


def make_taskb_batch(rng: random.Random, world: World, library: Library, batch_no: int, batch: str,
                     with_concepts: bool, descriptors: list[str], used: set) -> list[dict]:
    kinds = [k for k, n in zip(("yesno", "factoid", "list", "summary"), TASKB_TYPE_COUNTS[batch]) for _ in range(n)]
    rng.shuffle(kinds)
    questions = []
    for i, kind in enumerate(kinds):
        q = make_question(kind, rng, world, used)
        q["id"] = f"{0x6a0de300 + batch_no:08x}{0xd3000 + i + 1:016x}"
        snippets, documents = [], []
        for _ in range(rng.randint(2, 7)):
            facts = rng.sample(q["facts"], rng.randint(1, len(q["facts"])))
            title_fact = rng.random() < 0.25
            title = facts[0] if title_fact else f"{cap(rng.choice(METHODS))} in {rng.choice(MODELS)}: a synthetic study of {q['body'].rstrip('?.').split(' ')[-1]}"
            pmid = library.add(title, facts[1:] if title_fact else facts)
            documents.append(PUBMED + pmid)
            if title_fact:
                snippets.append(library.span(pmid, "title", 0, len(title)))
            for fact in (facts[1:] if title_fact else facts):
                snippets.append(library.sentence_spans(pmid, fact))
        q["documents"], q["snippets"] = documents, snippets
        q["concepts"] = ([MESH_URI + d for d in rng.sample(descriptors, rng.randint(1, 4))] if with_concepts else None)
        questions.append(q)
    for _ in range(40):  # articles no question needs: the distractors of the runs
        library.add(f"A synthetic report on {rng.choice(GENES)[0]} in {rng.choice(MODELS)}", [])
    return questions


def expert_finds(rng: random.Random, library: Library, questions: list[dict]) -> None:
    """Add to about a third of ``questions`` a gold document and snippet that only the
    experts found, as BioASQ's gold holds items no system returned: a new article whose
    abstract holds an expert's sentence on one of the question's facts; and to a factoid
    or list question among them, a synonym of its first answer that only the experts give.
    Called once the runs are made, so that no run returns them (the demo's sealed batch:
    its site must not show them)."""
    for q in questions:
        if rng.random() >= 1 / 3:
            continue
        if q["type"] in ("factoid", "list"):
            first, *rest = q["exact"]
            q["exact"] = [[*first, f"{first[0]} (expert-curated synonym)"], *rest]
        sentence = f"A synthetic registry review by the experts confirmed it: {rng.choice(q['facts'])}"
        topic = q["body"].rstrip("?.").split(" ")[-1]
        pmid = library.add(f"{cap(rng.choice(METHODS))} of a synthetic registry: {topic}", [sentence])
        q["documents"] = [*q["documents"], PUBMED + pmid]
        q["snippets"] = [*q["snippets"], library.sentence_spans(pmid, sentence)]


def testset_question(q: dict, phase: str) -> dict:
    """A question as the participants receive it: Phase A id, type and body; Phase B also
    the gold documents and snippets (as BioASQ's Phase B test sets)."""
    out = {"id": q["id"], "type": q["type"], "body": q["body"]}
    if phase == "phaseB":
        out["documents"], out["snippets"] = q["documents"], q["snippets"]
    return out


def gold_question(q: dict, phase: str) -> dict:
    out = {"id": q["id"], "type": q["type"], "body": q["body"], "documents": q["documents"]}
    if q["concepts"] is not None:
        out["concepts"] = q["concepts"]
    out["snippets"] = q["snippets"]
    if phase == "phaseB":
        out["ideal_answer"] = q["ideal"]
        if q["exact"] is not None:
            out["exact_answer"] = q["exact"]
    return out


# --- Task B runs -------------------------------------------------------------------------

def phase_a_run(rng: random.Random, library: Library, questions: list[dict], spec: dict,
                descriptors: list[str], batch_pmids: list[str]) -> dict:
    q_level, out = spec["quality"], []
    for q in questions:
        if rng.random() < spec["skip"]:
            continue
        gold_docs = [d[len(PUBMED):] for d in q["documents"]]
        scored = [(rng.random() * 0.8 + q_level, d) for d in gold_docs if rng.random() < 0.35 + 0.6 * q_level]
        others = [d for d in batch_pmids if d not in gold_docs]
        scored += [(rng.random(), d) for d in rng.sample(others, 10)]
        ranked = [d for _, d in sorted(scored, key=lambda x: (-x[0], x[1]))][:10]
        snippets = []
        for s in q["snippets"]:
            pmid = s["document"][len(PUBMED):]
            if pmid not in ranked or rng.random() > 0.3 + 0.65 * q_level:
                continue
            begin, end = s["offsetInBeginSection"], s["offsetInEndSection"]
            if rng.random() > q_level:  # boundaries off by a few characters, inside the section
                size = len(library.articles[pmid][s["beginSection"]])
                begin = max(0, begin + rng.randint(-25, 25))
                end = min(size, max(begin + 10, end + rng.randint(-30, 30)))
            snippets.append((rng.random() * 0.8 + q_level, library.span(pmid, s["beginSection"], begin, end)))
        for pmid in ranked:
            if pmid not in gold_docs and rng.random() < 0.4:
                text = library.articles[pmid]["abstract"]
                begin = rng.randrange(max(1, len(text) - 60))
                snippets.append((rng.random(), library.span(pmid, "abstract", begin, min(len(text), begin + rng.randint(40, 120)))))
        snippets = [s for _, s in sorted(snippets, key=lambda x: -x[0])][:10]
        question = {"id": q["id"], "type": q["type"], "body": q["body"], "documents": [PUBMED + d for d in ranked]}
        if spec.get("snippets", True):
            question["snippets"] = snippets
        if spec.get("concepts") and q["concepts"] is not None:
            concepts = [c for c in q["concepts"] if rng.random() < 0.3 + 0.6 * q_level]
            concepts += [MESH_URI + d for d in rng.sample(descriptors, rng.randint(1, 4))]
            question["concepts"] = concepts[:10]
        out.append(question)
    return {"questions": out}


def pick_name(rng: random.Random, synonyms: list[str]) -> list[str]:
    return [synonyms[0] if len(synonyms) == 1 or rng.random() < 0.75 else rng.choice(synonyms[1:])]


def phase_b_answer(rng: random.Random, q: dict, spec: dict) -> dict:
    level, baseline = spec["quality"], spec.get("baseline", False)
    answer = {"id": q["id"], "type": q["type"], "body": q["body"]}
    kind = q["type"]
    if kind == "yesno":
        right = rng.random() < 0.45 + 0.5 * level
        answer["exact_answer"] = "yes" if baseline else (q["exact"] if right else ("no" if q["exact"] == "yes" else "yes"))
    elif kind == "factoid":
        if rng.random() < spec.get("abstain", 0.0) * (1 - level):
            pass  # abstains: no exact answer (c@1 counts it as unanswered)
        else:
            wrong = [c for c in q["candidates"] if c[0] != q["exact"][0][0]]
            ranked = [pick_name(rng, c) for c in rng.sample(wrong, 4)]
            if rng.random() < 0.25 + 0.7 * level:
                ranked.insert(0 if rng.random() < level else rng.randint(1, 4), pick_name(rng, q["exact"][0]))
            answer["exact_answer"] = ranked[:5]
    elif kind == "list":
        gold_names = {i[0] for i in q["exact"]}
        items = [pick_name(rng, i) for i in q["exact"] if rng.random() < 0.3 + 0.65 * level]
        wrong = [c for c in q["candidates"] if c[0] not in gold_names]
        items += [pick_name(rng, c) for c in rng.sample(wrong, rng.randint(0, 1 + round(3 * (1 - level))))]
        answer["exact_answer"] = items or [pick_name(rng, wrong[0])]
    if baseline:
        answer["ideal_answer"] = q["snippets"][0]["text"]
    elif rng.random() < level:
        answer["ideal_answer"] = " ".join([q["ideal"][0]] + q["facts"][1:2])
    elif rng.random() < 0.6:
        answer["ideal_answer"] = q["facts"][0]
    else:
        answer["ideal_answer"] = "Several synthetic reports have studied this question, with mixed results."
    return answer


def phase_b_run(rng: random.Random, questions: list[dict], spec: dict) -> dict:
    return {"questions": [phase_b_answer(rng, q, spec) for q in questions if rng.random() >= spec["skip"]]}


def manual_scores(rng: random.Random, gold: list[dict], runs: dict[str, dict]) -> dict:
    """Experts' 1-5 scores (means of two experts, so halves occur) of each run's ideal answers."""
    by_id = {q["id"]: q for q in gold}
    systems = {}
    for name in sorted(runs):
        scores = {}
        for answer in runs[name]["questions"]:
            ideal = answer.get("ideal_answer")
            if not ideal:
                continue
            gold_ideal = by_id[answer["id"]]["ideal"][0]
            good = 2.0 if ideal.startswith(gold_ideal) else (1.0 if ideal in by_id[answer["id"]]["facts"] else 0.0)

            def score(base: float) -> float:
                experts = [min(5, max(1, round(base + rng.choice((-1, 0, 0, 1))))) for _ in range(2)]
                return sum(experts) / 2

            scores[answer["id"]] = {"recall": score(2 + 1.3 * good), "precision": score(2.5 + good),
                                    "repetition": score(4.2), "readability": score(3.5 + 0.6 * good)}
        systems[name] = scores
    return {"systems": systems}
