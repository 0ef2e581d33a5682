"""Multiple-choice reading tests (mcqa, QA4MRE style): the reading tests of each batch (gold),
the test sets (the gold without the right answers) and the systems' runs."""
from __future__ import annotations

import random

from .config import MCQA_TESTS_PER_TOPIC, MCQA_TOPICS
from .world import (
    DISEASES,
    DRUGS,
    EFFECTS,
    FILLERS,
    GENES,
    METHODS,
    MODELS,
    TISSUES,
    World,
    cap,
)


def _choices(rng: random.Random, right: str, pool: list[str]) -> tuple[list[dict], str]:
    """Five candidates (the right one and four others of ``pool``) in random order, and the id
    of the right one."""
    others = rng.sample(sorted(set(pool) - {right}), 4)
    texts = others + [right]
    rng.shuffle(texts)
    return [{"id": str(i), "text": t} for i, t in enumerate(texts, 1)], str(texts.index(right) + 1)


def mcqa_reading_test(rng: random.Random, world: World, topic: str, subject: str, test_id: str) -> dict:
    """One reading test: a short synthetic article about ``subject`` and five questions, each
    answered by one sentence of it."""
    model, method = rng.choice(MODELS), rng.choice(METHODS)
    n, w = rng.randint(12, 480), rng.randint(3, 40)
    if topic == "genes":
        symbol, name, function, tissue = world.gene[subject]
        diseases = sorted(d for d, gs in world.disease_genes.items() if subject in gs) or ["no known disease"]
        disease = rng.choice(diseases)
        facts = [f"{symbol} ({name}) {function}.", f"It is expressed mainly in the {tissue}.",
                 f"Its role was studied in {model} using {method}.",
                 (f"Variants of {symbol} have been found in families with {disease}." if disease != "no known disease"
                  else f"No disease has yet been linked to {symbol}.")]
        asked = [(f"What is the full name of {symbol}?", name, [g[1] for g in GENES]),
                 (f"What does {symbol} do, according to the text?", function, [g[2] for g in GENES]),
                 (f"Where is {symbol} mainly expressed?", tissue, [t[0] for t in TISSUES]),
                 ("Which organisms or models were studied?", model, MODELS),
                 (f"Which disease has been linked to {symbol}?", disease,
                  [d[0] for d in DISEASES] + ["no known disease"])]
    elif topic == "drugs":
        name, code, klass = world.drug[subject]
        target = world.drug_target[subject]
        effect = rng.choice(world.drug_effects[subject])[0]
        facts = [f"{cap(name)} ({code}) is a {klass}.", f"It binds {target} and blocks its activity.",
                 f"In a trial of {n} patients the most frequent adverse effect was {effect}.",
                 f"Its pharmacology was characterised by {method}."]
        numbers = [str(n)] + [str(n + d) for d in (-7, 13, 40, 95)]
        asked = [(f"What is the development code of {name}?", code, [d[1] for d in DRUGS]),
                 (f"What kind of drug is {name}?", klass, [d[2] for d in DRUGS]),
                 (f"Which protein does {name} bind?", target, [g[0] for g in GENES]),
                 ("How many patients took part in the trial?", str(n), numbers),
                 (f"Which adverse effect was the most frequent with {name}?", effect, [e[0] for e in EFFECTS])]
    else:
        name, abbr, symptom = world.disease[subject]
        gene, drug = world.disease_genes[subject][0], world.disease_drug[subject]
        facts = [f"{name} ({abbr}) is a rare inherited disorder characterised by {symptom}.",
                 f"Most cases are caused by mutations in {gene}.", f"{cap(drug)} is approved for its treatment.",
                 f"Patients were followed for {w} weeks; a model of the disease was built in {model}."]
        asked = [(f"What is the abbreviation of {name}?", abbr, [d[1] for d in DISEASES]),
                 (f"What is the main symptom of {name}?", symptom, [d[2] for d in DISEASES]),
                 (f"Which gene is mutated in most cases of {abbr}?", gene, [g[0] for g in GENES]),
                 (f"Which drug is approved for {abbr}?", drug, [d[0] for d in DRUGS]),
                 ("In which model was the disease reproduced?", model, MODELS)]
    filler = [f.format(n=n, w=w, model=model, method=method) for f in rng.sample(FILLERS, 3)]
    rest = facts[1:] + filler
    rng.shuffle(rest)
    sentences = facts[:1] + rest  # the subject is named first
    questions = []
    for q, (text, right, pool) in enumerate(asked, 1):
        candidates, correct = _choices(rng, right, pool)
        questions.append({"id": f"{test_id}-q{q}", "question": text, "candidates": candidates, "correct": correct})
    return {"id": test_id, "document": " ".join(sentences), "questions": questions}


def mcqa_gold(rng: random.Random, world: World, batch_no: int) -> dict:
    """A batch: three topics of :data:`MCQA_TESTS_PER_TOPIC` reading tests, subjects drawn
    without repetition across batches (the rng is shared by the batches)."""
    subjects = {"genes": sorted(world.gene), "drugs": sorted(world.drug), "diseases": sorted(world.disease)}
    topics, count = [], 0
    for topic, name in MCQA_TOPICS:
        tests = []
        for subject in rng.sample(subjects[topic], MCQA_TESTS_PER_TOPIC):
            count += 1
            tests.append(mcqa_reading_test(rng, world, topic, subject, f"b{batch_no}-rt{count}"))
        topics.append({"id": topic, "name": name, "reading_tests": tests})
    return {"topics": topics}


def mcqa_testset(gold: dict) -> dict:
    """What participants receive: the gold without ``correct``."""
    return {"topics": [{**t, "reading_tests": [{**r, "questions": [{k: v for k, v in q.items() if k != "correct"}
                                                                    for q in r["questions"]]}
                                               for r in t["reading_tests"]]} for t in gold["topics"]]}


def mcqa_run(rng: random.Random, gold: dict, spec: dict, silent_topic: str | None) -> dict:
    """Answers of one system: the baseline guesses; the others know the right candidate with
    a probability that grows with their quality and, when unsure, answer a guess or (with
    ``mcqa_abstain``) leave the question unanswered, usually naming their guess."""
    level, abstain = spec["quality"], spec.get("mcqa_abstain", 0.05)
    answers = []
    for topic in gold["topics"]:
        for test in topic["reading_tests"]:
            for q in test["questions"]:
                ids = [c["id"] for c in q["candidates"]]
                guess = rng.choice(ids)
                if spec.get("baseline"):
                    answers.append({"question": q["id"], "answer": guess})
                    continue
                knows = rng.random() < 0.2 + 0.75 * level
                pick = q["correct"] if knows else guess
                if topic["id"] == silent_topic or (not knows and rng.random() < abstain * 2) or rng.random() < abstain / 4:
                    entry = {"question": q["id"], "answer": None}
                    if rng.random() < 0.7:
                        entry["candidate"] = pick
                    answers.append(entry)
                else:
                    answers.append({"question": q["id"], "answer": pick})
    return {"system": "synthetic demo run", "answers": answers}
