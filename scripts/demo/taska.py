"""Task A (semantic indexing): the MeSH-like label hierarchy, the gold labels and the test sets
of each test set's documents, and the systems' runs."""
from __future__ import annotations

import random

from .config import TASKA_DOCUMENTS
from .world import CATEGORIES, FILLERS, GENES, METHODS, MODELS, cap


def taska_testset(gold: list[dict], rng: random.Random) -> list[dict]:
    """A Task A test set: the gold's PMIDs with a synthetic title and abstract, no labels
    (BioASQ's field names: pmid, title, abstractText, journal, year)."""
    documents = []
    for doc in gold:
        gene, model, method = rng.choice(GENES), rng.choice(MODELS), rng.choice(METHODS)
        title = f"{cap(method)} of {gene[0]} ({gene[1]}) in {model}"
        sentences = [f"{gene[0]} {gene[2]}."] + [
            filler.format(n=rng.randint(12, 480), w=rng.randint(2, 52), model=model, method=method)
            for filler in rng.sample(FILLERS, rng.randint(2, 4))]
        documents.append({"pmid": doc["pmid"], "title": title, "abstractText": " ".join(sentences),
                          "journal": "Journal of Synthetic Biomedicine", "year": 2026})
    return documents


def make_hierarchy(rng: random.Random) -> tuple[list[tuple[str, str]], dict[str, list[str]], list[str]]:
    """Root ``MeSH``, 12 categories, ~25 descriptors each; ~8% with a second parent."""
    edges = [("MeSH", c) for c in CATEGORIES]
    parents: dict[str, list[str]] = {}
    descriptors: list[str] = []
    ids = rng.sample(range(900000, 999999), 30 * len(CATEGORIES))
    it = iter(sorted(ids))
    for category in CATEGORIES:
        members: list[str] = []
        for _ in range(rng.randint(20, 30)):
            d = f"D{next(it)}"
            parent = category if len(members) < 3 or rng.random() < 0.15 else rng.choice(members)
            parents[d] = [parent]
            members.append(d)
        descriptors += members
    for d in descriptors:  # a second parent among earlier descriptors keeps the graph acyclic
        position = descriptors.index(d)
        if position > 30 and rng.random() < 0.08:
            other = rng.choice(descriptors[:position])
            if other not in parents[d]:
                parents[d].append(other)
    for d in descriptors:
        edges += [(p, d) for p in parents[d]]
    return edges, parents, descriptors


def taska_gold(rng: random.Random, parents: dict, descriptors: list[str], weights: list[float],
               check_tags: list[str], next_pmid) -> list[dict]:
    children: dict[str, list[str]] = {}
    for d, ps in parents.items():
        for p in ps:
            children.setdefault(p, []).append(d)
    documents = []
    for _ in range(TASKA_DOCUMENTS):
        n = rng.randint(8, 13)
        labels = set(rng.sample(check_tags, rng.randint(1, 3)))
        topic = rng.choice(descriptors)
        near = [topic] + children.get(topic, []) + [p for p in parents[topic] if p in parents]
        labels.update(rng.sample(near, min(len(near), rng.randint(1, 3))))
        while len(labels) < n:
            labels.add(rng.choices(descriptors, weights)[0])
        documents.append({"pmid": next_pmid(), "labels": sorted(labels)})
    return documents


def taska_run(rng: random.Random, gold: list[dict], spec: dict, parents: dict, descriptors: list[str],
              weights: list[float], frequent: list[str]) -> list[dict]:
    level, out = spec["quality"], []
    for doc in gold:
        if spec.get("baseline"):
            out.append({"pmid": doc["pmid"], "labels": frequent})
            continue
        if rng.random() < 0.06 * (1 - level):  # nothing passed the threshold: the fallback label
            out.append({"pmid": doc["pmid"], "labels": frequent[:1]})
            continue
        labels = []
        for label in doc["labels"]:
            if rng.random() < 0.3 + 0.65 * level:
                labels.append(label)
            elif rng.random() < 0.5 and parents.get(label):
                near = [p for p in parents[label] if p in parents]
                if near:
                    labels.append(rng.choice(near))  # a near miss: the parent
        labels += rng.choices(descriptors, weights, k=rng.randint(0, 1 + round(4 * (1 - level))))
        out.append({"pmid": doc["pmid"], "labels": sorted(set(labels)) or frequent[:1]})
    return out
